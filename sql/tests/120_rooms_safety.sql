-- What rooms, gifts and friends' routes give away (docs/rooms.md, docs/moderation.md,
-- 2026-12-06): a join code the caller may not use answers exactly as an unknown one, and joins
-- that find no room are throttled per account; a block parts the two in every room that has
-- not ended (the one who is not the host leaves, the blocked one when neither hosts), never in
-- one that ended; the blocked user sees the blocker as the block left them in gifts, rooms and
-- friend requests; a friend while suspended answers exactly as an ex-friend.
begin;
select plan(38);
update app.achievements set active = false;  -- the events here are this file's own
select test.new_user(name)
from unnest(array['ann', 'bob', 'cat', 'jay', 'ivy', 'dan', 'eve', 'fay', 'gus', 'hal', 'kim', 'lee', 'sue', 'exa']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend(a, b)
from (values ('ann', 'bob'), ('ann', 'cat'), ('ann', 'jay'), ('dan', 'eve'), ('dan', 'fay'), ('gus', 'hal'), ('gus', 'kim'),
             ('lee', 'sue'), ('lee', 'exa')) p(a, b);
-- Everything an answer says, raised or not: status (SQLSTATE), code, message, extra members, Retry-After.
create function pg_temp.answer(statement text) returns text language plpgsql as $$
declare
    v_reply api.reply;
    v_state text;
    v_message text;
    v_detail text;
    v_hint text;
begin
    execute 'select (r).* from (' || statement || ') as t(r)' into v_reply;
    return row('PT' || coalesce(v_reply.status, 200), v_reply.code, v_reply.message, v_reply.body, v_reply.retry_after)::text;
exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_message = message_text, v_detail = pg_exception_detail, v_hint = pg_exception_hint;
    return row(v_state, v_detail, v_message, nullif(v_hint, ''), null)::text;
end
$$;
create function pg_temp.join(who text, code text) returns text language sql as $$
    select pg_temp.answer(format($f$ select api.rooms_join(test.token(%L), %L, '{}') $f$, who, jsonb_build_object('code', code)))
$$;
create function pg_temp.open(host text) returns text language sql as $$
    select (api.rooms_create(test.token(host), '{}', '{"planned_minutes": 25}')).body -> 'room' ->> 'code'
$$;
create function pg_temp.room(code text) returns uuid language sql as $$
    select r.id from app.rooms r where r.code = $1
$$;
create function pg_temp.states(code text) returns text language sql as $$
    select string_agg(initcap(a.name) || ' ' || m.state, ', ' order by a.name)
    from app.room_members m join test.accounts a on (a.account -> 'user' ->> 'id')::uuid = m.user_id
    where m.room_id = pg_temp.room($1)
$$;
create function pg_temp.card_name(cards jsonb, who text) returns text language sql as $$
    select coalesce(c -> 'user', c) ->> 'display_name' from jsonb_array_elements(cards) c
    where coalesce(c -> 'user', c) ->> 'id' = test.uid(who)::text
$$;

-- One answer for every code the caller may not use.
create temp table codes as select pg_temp.open('ann') as r1, pg_temp.open('dan') as r2, pg_temp.open('gus') as r3;
select pg_temp.join(name, (select r1 from codes)) from unnest(array['bob', 'cat']) name;
select pg_temp.join(name, (select r2 from codes)) from unnest(array['eve', 'fay']) name;
select pg_temp.join(name, (select r3 from codes)) from unnest(array['hal', 'kim']) name;
select is(pg_temp.join('ivy', (select r1 from codes)), pg_temp.join('ivy', 'ZZZZZZZZ'),
          'ivy, a stranger to ann, gets for ann''s real code exactly what an unknown code answers');
select is(pg_temp.join('ivy', 'ZZZZZZZZ'), '(PT404,room_not_found,"No room waits with this code.",,)', '... 404 room_not_found');
select api.rooms_start(test.token('dan'), jsonb_build_object('id', pg_temp.room((select r2 from codes))), '{}');
select is(pg_temp.join('ivy', (select r2 from codes)), pg_temp.join('ivy', 'ZZZZZZZZ'),
          'a stranger with the code of a started room: the same 404, not room_not_open');
select is(pg_temp.join('eve', (select r2 from codes)) like '(PT200,%', true, 'a member joining again still gets the room');

-- The throttle: joins that find no room, per account.
delete from app.room_join_failures;
update app.room_settings set max_join_failures = 3, join_failure_window = interval '15 minutes';
select is(array[pg_temp.join('jay', 'ZZZZZZZA'), pg_temp.join('jay', 'ZZZZZZZB'), pg_temp.join('jay', 'ZZZZZZZC')] <@
          array[pg_temp.join('ivy', 'ZZZZZZZZ')], true, 'jay tries three codes that find nothing: 404 each');
select is(pg_temp.join('jay', (select r1 from codes)),
          '(PT429,too_many_join_attempts,"Too many room codes that found no room; wait before trying again.",,900)',
          '... then even ann''s real code is 429 too_many_join_attempts, Retry-After until the oldest leaves the window');
select is((select count(*)::integer from app.room_join_failures where user_id = test.uid('jay')), 3,
          '... the 429 itself is not counted');
select is(pg_temp.join('cat', (select r1 from codes)) like '(PT200,%', true, 'others are not throttled by jay''s guesses');
update app.room_join_failures set failed_at = failed_at - interval '16 minutes' where user_id = test.uid('jay');
select is(pg_temp.join('jay', (select r1 from codes)) like '(PT200,%', true, 'once the window passed, jay joins');
select is((select count(*)::integer from app.room_join_failures where user_id = test.uid('jay')), 3, 'a join that found its room is not counted');
select api.rooms_settle();
select is((select count(*)::integer from app.room_join_failures where user_id = test.uid('jay')), 0,
          'the scheduled settlement deletes the records past the window');
update app.room_settings set max_join_failures = 1000;

-- A rename and a new avatar after a block do not reach the blocked user.
select app.grant_coins(test.uid('bob'), 100, 'test');
select api.gifts_create(test.token('bob'), '{}', jsonb_build_object('to', test.uid('ann'), 'coins', 10));
select test.new_events();

-- A block parts the two: ann, the host of a waiting room, blocks bob.
select api.users_block_create(test.token('ann'), jsonb_build_object('id', test.uid('bob')), '{}');
select is(pg_temp.states((select r1 from codes)), 'Ann joined, Bob left, Cat joined, Jay joined', 'ann blocks bob: bob leaves ann''s waiting room');
create function pg_temp.room_events() returns text[] language sql as $$
    select array(select e from unnest(test.new_events()) e where e like '% room.%')
$$;
select is(pg_temp.room_events(), '{"ann room.left bob","bob room.left bob","cat room.left bob","jay room.left bob"}',
          '... the others hear it as a leave, and bob''s devices that he is out');
select api.users_block_create(test.token('cat'), jsonb_build_object('id', test.uid('jay')), '{}');
select is(pg_temp.states((select r1 from codes)), 'Ann joined, Bob left, Cat joined, Jay left',
          'cat blocks jay, neither the host: jay, the blocked one, leaves');
select test.new_events();
select is(pg_temp.join('bob', (select r1 from codes)), pg_temp.join('ivy', 'ZZZZZZZZ'), 'bob cannot join again: an unknown code''s 404');

-- In a running room: fay blocks dan, the host: fay leaves; her session goes on as her own.
select api.users_block_create(test.token('fay'), jsonb_build_object('id', test.uid('dan')), '{}');
select is(pg_temp.states((select r2 from codes)), 'Dan joined, Eve joined, Fay left', 'fay blocks dan, the host of a running room: fay leaves');
select is(pg_temp.room_events(), '{"dan room.left fay","eve room.left fay","fay room.left fay"}', '... dan and eve hear it, and fay''s devices');
select is((select count(*)::integer from app.focus_sessions s where s.user_id = test.uid('fay') and s.ended_at is null), 1,
          '... her session still runs');
select is((select count(*)::integer from app.room_members m where m.user_id = test.uid('fay') and m.session_id is not null), 0,
          '... no longer the room''s, so its end does not decide the room');
select is((select status from app.rooms where id = pg_temp.room((select r2 from codes))), 'running', 'the room runs on for dan and eve');

-- An ended room keeps its members: gus leaves (cancels), then hal blocks kim.
select api.rooms_leave(test.token('gus'), jsonb_build_object('id', pg_temp.room((select r3 from codes))), '{}');
select test.new_events();
select api.users_block_create(test.token('hal'), jsonb_build_object('id', test.uid('kim')), '{}');
select is(pg_temp.states((select r3 from codes)), 'Gus left, Hal joined, Kim joined', 'a block changes nothing in a room that ended');
select is(test.new_events(), '{}', '... and tells nobody');

-- ann renames herself and sets an avatar after blocking bob.
select api.me_update(test.token('ann'), '{}', '{"display_name": "Ann Later"}');
insert into app.avatars (user_id, content_type, data) values (test.uid('ann'), 'image/png', '\x89504e470d0a1a0a00'::bytea);
create temp table bob_sees as
select (api.gifts_sent_list(test.token('bob'), '{}', '{}')).body -> 'gifts' -> 0 -> 'to' as gift_to,
       (api.rooms_get(test.token('bob'), jsonb_build_object('id', pg_temp.room((select r1 from codes))), '{}')).body -> 'room' -> 'members' as room_members,
       (select jsonb_agg(m) from jsonb_array_elements((api.rooms_list(test.token('bob'), '{}', '{}')).body -> 'rooms') r,
                                 jsonb_array_elements(r -> 'members') m) as list_members,
       (api.friend_requests_create(test.token('bob'), '{}', '{"email": "ann@example.com"}')).body -> 'request' -> 'to' as request_to,
       (select g -> 'to' from jsonb_array_elements((api.me_export_get(test.token('bob'), '{}', '{}')).body -> 'gifts') g) as export_to;
select is((select gift_to ->> 'display_name' from bob_sees), 'Ann', 'GET /gifts/sent: bob sees ann''s name as the block left it');
select is((select gift_to -> 'has_avatar' from bob_sees), 'false', '... and no avatar');
select is((select pg_temp.card_name(room_members, 'ann') from bob_sees), 'Ann', 'GET /rooms/{id}: the old name');
select is((select pg_temp.card_name(list_members, 'ann') from bob_sees), 'Ann', 'GET /rooms: the old name');
select is((select request_to ->> 'display_name' from bob_sees), 'Ann', 'asking her by email: the old name');
select is((select export_to ->> 'display_name' from bob_sees), 'Ann', 'his export: the old name');
select is((select f -> 'to' ->> 'display_name' from jsonb_array_elements((api.friend_requests_list(test.token('bob'), '{}', '{}')).body -> 'outgoing') f),
          'Ann', 'his outgoing requests: the old name');
select is(pg_temp.card_name((api.rooms_get(test.token('cat'), jsonb_build_object('id', pg_temp.room((select r1 from codes))), '{}')).body
                            -> 'room' -> 'members', 'ann'), 'Ann Later', 'cat, not blocked, sees the new name');
select is(pg_temp.card_name((select jsonb_agg(b -> 'user') from jsonb_array_elements((api.me_blocks_list(test.token('ann'), '{}', '{}')).body -> 'blocks') b),
                            'bob'), 'Bob', 'ann sees bob as he is');

-- A friend while suspended answers as an ex-friend: lee and sue are friends, sue is suspended;
-- lee and exa were friends.
select pg_temp.open('sue');
select api.friends_delete(test.token('lee'), jsonb_build_object('user_id', test.uid('exa')), '{}');
insert into app.suspensions (user_id, until) values (test.uid('sue'), now() + interval '1 day');
insert into app.avatars (user_id, content_type, data)
values (test.uid('sue'), 'image/png', '\x89504e470d0a1a0a00'::bytea), (test.uid('exa'), 'image/png', '\x89504e470d0a1a0a00'::bytea);
select app.grant_coins(test.uid('lee'), 100, 'test');
create function pg_temp.as_lee(statement text, who text) returns text language sql as $$
    select pg_temp.answer(format(statement, test.token('lee'), test.uid(who)))
$$;
select is(pg_temp.as_lee($$ select api.gifts_create(%L, '{}', jsonb_build_object('to', %L, 'coins', 5)) $$, 'sue'),
          pg_temp.as_lee($$ select api.gifts_create(%L, '{}', jsonb_build_object('to', %L, 'coins', 5)) $$, 'exa'),
          'a gift to a suspended friend answers exactly as to an ex-friend');
select is(pg_temp.as_lee($$ select api.gifts_create(%L, '{}', jsonb_build_object('to', %L, 'coins', 5)) $$, 'sue'),
          '(PT404,user_not_found,"Gifts go to friends only: this is not one of yours.",,)', '... 404 user_not_found');
select is(pg_temp.as_lee($$ select api.rooms_create(%L, '{}', jsonb_build_object('planned_minutes', 25, 'invite', jsonb_build_array(%L))) $$, 'sue'),
          pg_temp.as_lee($$ select api.rooms_create(%L, '{}', jsonb_build_object('planned_minutes', 25, 'invite', jsonb_build_array(%L))) $$, 'exa'),
          'inviting a suspended friend to a room answers exactly as inviting an ex-friend');
select is(pg_temp.as_lee($$ select api.rooms_create(%L, '{}', jsonb_build_object('planned_minutes', 25, 'invite', jsonb_build_array(%L))) $$, 'sue'),
          '(PT404,user_not_found,"Invite friends only: one of these is not your friend.",,)', '... 404 user_not_found');
select is(test.error_of(format($$ select api.users_avatar_get(%L, %L, '{}') $$, test.token('lee'), jsonb_build_object('id', test.uid('sue')))),
          test.error_of(format($$ select api.users_avatar_get(%L, %L, '{}') $$, test.token('lee'), jsonb_build_object('id', test.uid('exa')))),
          'a suspended friend''s avatar answers as an ex-friend''s');
select is(pg_temp.join('lee', (select r.code from app.rooms r where r.host_id = test.uid('sue'))), pg_temp.join('ivy', 'ZZZZZZZZ'),
          'joining a suspended friend''s room: an unknown code''s 404');
select is((select count(*)::integer from app.gifts g where g.sender_id = test.uid('lee'))
          + (select count(*)::integer from app.rooms r where r.host_id = test.uid('lee')), 0, '... and none of these wrote anything');

select * from finish();
rollback;
