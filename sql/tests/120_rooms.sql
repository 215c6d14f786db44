-- Focus rooms: open with a plan and a code, invite friends, join by code (friends of the host
-- only, never across a block, both answered as an unknown code; up to the limit), leave, start at one server time; what members
-- hear at each step; every refusal with its code and nothing written.
begin;
select plan(42);
select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend('ann', name) from unnest(array['bob', 'cat', 'dan', 'eve', 'gus']) as name;
select test.new_events();
update app.room_settings set max_members = 4;

-- Open: ann hosts a 25-minute room and invites bob; bob hears it with the code.
create temp table r as
select (api.rooms_create(test.token('ann'), '{}', jsonb_build_object('planned_minutes', 25, 'invite', jsonb_build_array(test.uid('bob'))))).body -> 'room' as room;
select is((select room ->> 'status' from r), 'open', 'ann opens a room: it waits');
select ok((select room ->> 'code' from r) ~ '^[2-9A-HJKMNP-TV-Z]{8}$', 'its code: 8 characters, none ambiguous (no 0/O, 1/I/L, U)');
select is((select jsonb_agg(m ->> 'state' order by m ->> 'state') from r, jsonb_array_elements(room -> 'members') m),
          '["invited", "joined"]', 'ann joined, bob invited');
select is((select (room ->> 'bonus_coins')::integer from r), 5, 'the bonus if all finish: 20% of the 25 coins the plan earns');
select is(test.new_events(), '{"bob room.invited ann"}', 'bob hears the invitation (from ann)');
select is((select e.payload ->> 'code' from app.events e where e.type = 'room.invited' and e.user_id = test.uid('bob')),
          (select room ->> 'code' from r), '... with the code to join by');
select is(test.error_of($$ select api.rooms_create(test.token('ann'), '{}', '{"planned_minutes": 25}') $$),
          'PT409 room_in_progress', 'ann cannot open a second room while in this one');

-- Join by code (any letter case, spaces around it).
select is((api.rooms_join(test.token('bob'), jsonb_build_object('code', ' ' || lower((select room ->> 'code' from r)) || ' '), '{}')).body
          -> 'room' ->> 'id', (select room ->> 'id' from r), 'bob joins by the code, in lower case');
select is(test.new_events(), '{"ann room.joined bob"}', 'ann hears bob joined; bob nothing');
select is((api.rooms_join(test.token('bob'), jsonb_build_object('code', (select room ->> 'code' from r)), '{}')).body -> 'room' ->> 'status',
          'open', 'joining again answers the room');
select is(test.new_events(), '{}', '... and tells nobody');
select api.rooms_join(test.token('cat'), jsonb_build_object('code', (select room ->> 'code' from r)), '{}');
select is(test.new_events(), '{"ann room.joined cat","bob room.joined cat"}', 'cat joins uninvited (a friend of ann): both hear it');

-- Refusals, each writing nothing.
select is(test.answer_of($$ select api.rooms_join(test.token('cat'), '{"code": "ZZZZZZZZ"}', '{}') $$), 'PT404 room_not_found', 'an unknown code is 404');
select is(test.answer_of(format($$ select api.rooms_join(test.token('fay'), %L, '{}') $$, jsonb_build_object('code', (select room ->> 'code' from r)))),
          'PT404 room_not_found', 'fay is not ann''s friend: the same 404 as an unknown code');
select api.users_block_create(test.token('dan'), jsonb_build_object('id', test.uid('cat')), '{}');
select test.new_events();
select is(test.answer_of(format($$ select api.rooms_join(test.token('dan'), %L, '{}') $$, jsonb_build_object('code', (select room ->> 'code' from r)))),
          'PT404 room_not_found', 'dan blocked cat, who is in the room: the room is not found for dan');
select is(test.error_of($$ select api.rooms_join(test.token('bob'), '{"code": "ABCDEFGHJKMNPQRSTVWXY"}', '{}') $$), 'PT400 invalid_field', 'a code over 20 characters is 400');
select is(test.error_of($$ select api.rooms_join(test.token('bob'), '{"code": "  "}', '{}') $$), 'PT400 invalid_field', 'a blank code is 400');
select is(test.error_of($$ select api.rooms_create(test.token('dan'), '{}', '{"planned_minutes": 0}') $$), 'PT400 invalid_field', 'a plan of 0 minutes is 400');
select is(test.error_of($$ select api.rooms_create(test.token('dan'), '{}', '{"planned_minutes": 181}') $$), 'PT400 invalid_field',
          'a plan over the longest session is 400');
select is(test.error_of(format($$ select api.rooms_create(test.token('dan'), '{}', %L) $$,
                               jsonb_build_object('planned_minutes', 25, 'invite', jsonb_build_array(test.uid('fay'))))),
          'PT404 user_not_found', 'inviting someone who is not a friend is 404 user_not_found');
select is(test.error_of($$ select api.rooms_create(test.token('dan'), '{}', '{"planned_minutes": 25, "invite": ["nope"]}') $$),
          'PT400 invalid_field', 'an invitee that is not a user id is 400');
select is((select count(*)::integer from app.rooms where host_id = test.uid('dan')), 0, '... and none of these opened a room');
select is(test.new_events(), '{}', '... or told anyone anything');
select is(test.error_of(format($$ select api.rooms_start(test.token('bob'), %L, '{}') $$, jsonb_build_object('id', (select room ->> 'id' from r)))),
          'PT403 not_room_host', 'bob cannot start ann''s room');
select is(test.error_of(format($$ select api.rooms_get(test.token('eve'), %L, '{}') $$, jsonb_build_object('id', (select room ->> 'id' from r)))),
          'PT404 room_not_found', 'eve, not a member, does not see the room');
select is(test.error_of(format($$ select api.rooms_start(test.token('eve'), %L, '{}') $$, jsonb_build_object('id', (select room ->> 'id' from r)))),
          'PT404 room_not_found', '... nor start it');

-- The limit: 4 members; eve fills it, gus is refused.
select api.rooms_join(test.token('eve'), jsonb_build_object('code', (select room ->> 'code' from r)), '{}');
select test.new_events();
select is(test.error_of(format($$ select api.rooms_join(test.token('gus'), %L, '{}') $$, jsonb_build_object('code', (select room ->> 'code' from r)))),
          'PT409 room_full', 'the fifth is refused: 409 room_full');
-- Leave before the start: the others hear it, and the place is free again.
select is((select m ->> 'state' from jsonb_array_elements(
               (api.rooms_leave(test.token('eve'), jsonb_build_object('id', (select room ->> 'id' from r)), '{}')).body -> 'room' -> 'members') m
           where m -> 'user' ->> 'id' = test.uid('eve')::text), 'left', 'eve leaves');
select is(test.new_events(), '{"ann room.left eve","bob room.left eve","cat room.left eve"}', 'the three others hear eve left');
select is((api.rooms_leave(test.token('eve'), jsonb_build_object('id', (select room ->> 'id' from r)), '{}')).body -> 'room' ->> 'status',
          'open', 'leaving again answers the room');
select is(test.new_events(), '{}', '... and tells nobody');

-- A member's own session stops the start for all.
select api.focus_sessions_start(test.token('cat'), '{}', '{"planned_minutes": 10}');
select is(test.error_of(format($$ select api.rooms_start(test.token('ann'), %L, '{}') $$, jsonb_build_object('id', (select room ->> 'id' from r)))),
          'PT409 room_member_busy', 'cat''s own session runs: 409 room_member_busy');
select api.focus_sessions_abandon(test.token('cat'), jsonb_build_object('id', s.id), '{}')
from app.focus_sessions s where s.user_id = test.uid('cat') and s.ended_at is null;
-- The abandoned session holds its time up to its plan: an overlap would refuse it too; move it back.
update app.focus_sessions s set started_at = started_at - interval '1 day', ended_at = ended_at - interval '1 day',
    occupies = tstzrange(lower(occupies) - interval '1 day', upper(occupies) - interval '1 day')
where s.user_id = test.uid('cat');

-- Start: one server time for every member.
create temp table started as
select (api.rooms_start(test.token('ann'), jsonb_build_object('id', (select room ->> 'id' from r)), '{}')).body -> 'room' as room;
select is((select room ->> 'status' from started), 'running', 'ann starts the room');
select is((select count(*)::integer from app.room_members m join app.focus_sessions s on s.id = m.session_id
           where m.room_id = (select (room ->> 'id')::uuid from r) and s.started_at = now() and s.planned_minutes = 25 and s.ended_at is null),
          3, 'ann, bob and cat each run a live 25-minute session, started at the same server time');
select is((select room ->> 'session_id' from started),
          (select s.id::text from app.focus_sessions s where s.user_id = test.uid('ann') and s.ended_at is null), 'ann''s answer names her session');
select is(test.new_events(), '{"bob room.started","bob session.started","cat room.started","cat session.started"}',
          'bob and cat hear the start (ann started it), and their devices that a session of theirs runs');
select is((select e.payload ->> 'session_id' from app.events e where e.type = 'room.started' and e.user_id = test.uid('bob')),
          (select s.id::text from app.focus_sessions s where s.user_id = test.uid('bob') and s.ended_at is null), '... each with their own session');
select is((api.focus_sessions_current_get(test.token('bob'), '{}', '{}')).body -> 'session' ->> 'planned_minutes', '25',
          'bob''s phone finds it as its running session');
select is(test.error_of(format($$ select api.rooms_start(test.token('ann'), %L, '{}') $$, jsonb_build_object('id', (select room ->> 'id' from r)))),
          'PT409 room_not_open', 'a second start is 409 room_not_open');
select is(test.error_of(format($$ select api.rooms_leave(test.token('bob'), %L, '{}') $$, jsonb_build_object('id', (select room ->> 'id' from r)))),
          'PT409 room_not_open', 'leaving after the start is 409 (a member gives up by abandoning)');
select is(test.error_of(format($$ select api.rooms_join(test.token('gus'), %L, '{}') $$, jsonb_build_object('code', (select room ->> 'code' from r)))),
          'PT409 room_not_open', 'joining a started room is 409 room_not_open');
select is((select jsonb_agg(x ->> 'id') from jsonb_array_elements((api.rooms_list(test.token('eve'), '{}', '{}')).body -> 'rooms') x),
          jsonb_build_array((select room ->> 'id' from r)), 'eve, who left, keeps the room in her history');

select * from finish();
rollback;
