-- Focus rooms' outcomes: a give-up fails the room for all (no bonus; those who stayed keep the
-- minutes and coins of their own sessions); everyone finishing pays each the bonus through the
-- ledger; members whose phones vanished are settled by the scheduled job (api.jobs_run), in a
-- room that spans midnight; a room nobody starts is cancelled. Time passes by moving the room
-- and its sessions back (the file is one transaction, so now() stands still).
begin;
select plan(32);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user(name) from unnest(array['ann', 'bob', 'cat']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend('ann', 'bob'), pg_temp.befriend('ann', 'cat');
-- A room of ann's with the named friends joined and started; returns its id.
create function pg_temp.room(minutes integer, members text[]) returns uuid language plpgsql as $$
declare
    v_room jsonb := (api.rooms_create(test.token('ann'), '{}', jsonb_build_object('planned_minutes', minutes))).body -> 'room';
    v_name text;
begin
    foreach v_name in array members loop
        perform api.rooms_join(test.token(v_name), jsonb_build_object('code', v_room ->> 'code'), '{}');
    end loop;
    perform api.rooms_start(test.token('ann'), jsonb_build_object('id', v_room ->> 'id'), '{}');
    return (v_room ->> 'id')::uuid;
end
$$;
-- Moves a room and its members' sessions `by` into the past.
create function pg_temp.rewind(room uuid, by interval) returns void language sql as $$
    update app.rooms r set created_at = created_at - by, started_at = started_at - by where r.id = room;
    update app.focus_sessions s
    set started_at = started_at - by, ended_at = ended_at - by,
        occupies = tstzrange(lower(occupies) - by, upper(occupies) - by)
    where s.id in (select m.session_id from app.room_members m where m.room_id = room);
$$;
create function pg_temp.session_of(room uuid, name text) returns jsonb language sql as $$
    select jsonb_build_object('id', m.session_id) from app.room_members m where m.room_id = room and m.user_id = test.uid(name)
$$;
create function pg_temp.room_events() returns text[] language sql as $$
    select coalesce(array_agg(e order by e), '{}') from unnest(test.new_events()) e where e ~ ' room\.'
$$;
create function pg_temp.outcomes(room uuid) returns text language sql as $$
    select string_agg(a.name || ' ' || coalesce(m.outcome, '-'), ', ' order by a.name)
    from app.room_members m join test.accounts a on (a.account -> 'user' ->> 'id')::uuid = m.user_id
    where m.room_id = room and m.state = 'joined'
$$;
create function pg_temp.ledger(room uuid) returns text language sql as $$
    select coalesce(string_agg(a.name || ' ' || c.entry || ' ' || c.amount, ', ' order by a.name, c.entry), '')
    from app.coin_ledger c join test.accounts a on (a.account -> 'user' ->> 'id')::uuid = c.user_id
    where c.room_id = room or c.session_id in (select m.session_id from app.room_members m where m.room_id = room)
$$;
create temp table rooms (name text primary key, id uuid);
select test.new_events();

-- 1. A give-up: cat abandons ten minutes in; the room fails for all.
insert into rooms values ('given up', pg_temp.room(25, array['bob', 'cat']));
select pg_temp.rewind((select id from rooms where name = 'given up'), interval '10 minutes');
select pg_temp.room_events();
select api.focus_sessions_abandon(test.token('cat'), pg_temp.session_of((select id from rooms where name = 'given up'), 'cat'), '{}');
select is(pg_temp.room_events(), '{"ann room.gave_up cat","bob room.gave_up cat"}', 'cat gives up: ann and bob hear it');
select is((select e.payload ->> 'outcome' from app.events e where e.type = 'room.gave_up' and e.user_id = test.uid('ann')),
          'gave_up', '... as a give-up');
select is((select status from app.rooms where id = (select id from rooms where name = 'given up')), 'failed', 'the room failed at once');
select is(pg_temp.outcomes((select id from rooms where name = 'given up')), 'ann -, bob -, cat gave_up', 'ann and bob still focus');
-- ann and bob stay to the plan's end: their own sessions count as any session does.
select pg_temp.rewind((select id from rooms where name = 'given up'), interval '16 minutes');
select is((api.focus_sessions_finish(test.token('ann'), pg_temp.session_of((select id from rooms where name = 'given up'), 'ann'), '{}')).body
          -> 'session' ->> 'coins_earned', '25', 'ann finishes after the plan''s end: her 25 minutes earn 25 coins');
select is(pg_temp.room_events(), '{"bob room.finished ann","cat room.finished ann"}', 'bob and cat hear ann finished');
select api.focus_sessions_finish(test.token('bob'), pg_temp.session_of((select id from rooms where name = 'given up'), 'bob'), '{}');
select is(pg_temp.room_events(), '{"ann room.ended","ann room.finished bob","bob room.ended","cat room.ended","cat room.finished bob"}',
          'bob finishes: everyone hears it and that the room ended');
select is((select e.payload - 'room_id' from app.events e where e.type = 'room.ended' and e.user_id = test.uid('bob') order by e.id desc limit 1),
          '{"status": "failed", "bonus": 0}'::jsonb, '... failed, with no bonus');
select is(pg_temp.outcomes((select id from rooms where name = 'given up')), 'ann completed, bob completed, cat gave_up', 'the outcomes');
select is(pg_temp.ledger((select id from rooms where name = 'given up')), 'ann earn 25, bob earn 25',
          'the ledger: ann''s and bob''s sessions earned, cat nothing, no bonus');
select ok((select ended_at is not null from app.rooms where id = (select id from rooms where name = 'given up')), 'the failed room has ended');

select pg_temp.rewind((select id from rooms where name = 'given up'), interval '3 hours');  -- out of the next rooms' time

-- 2. Everyone finishes: each earns the session's coins and the bonus, in the ledger.
insert into rooms values ('completed', pg_temp.room(25, array['bob', 'cat']));
select pg_temp.room_events();
select pg_temp.rewind((select id from rooms where name = 'completed'), interval '26 minutes');
select is((api.focus_sessions_finish(test.token('bob'), pg_temp.session_of((select id from rooms where name = 'completed'), 'bob'), '{}')).body
          -> 'session' ->> 'minutes', '25', 'bob finishes one minute after the plan''s end (in the grace): 25 minutes');
select api.focus_sessions_finish(test.token('ann'), pg_temp.session_of((select id from rooms where name = 'completed'), 'ann'), '{}');
select is((select status from app.rooms where id = (select id from rooms where name = 'completed')), 'running', 'two of three: still running');
select pg_temp.room_events();
select is((select balance from app.users where id = test.uid('cat')), 0, 'cat has earned nothing yet');
select is(((api.focus_sessions_finish(test.token('cat'), pg_temp.session_of((select id from rooms where name = 'completed'), 'cat'), '{}')).body
           ->> 'balance')::integer, 30, 'the last one finishes: cat''s balance is 25 coins + the 5-coin bonus');
select is((select status from app.rooms where id = (select id from rooms where name = 'completed')), 'completed', 'the room completed');
select is(pg_temp.ledger((select id from rooms where name = 'completed')),
          'ann bonus 5, ann earn 25, bob bonus 5, bob earn 25, cat bonus 5, cat earn 25', 'every member: an earning and a bonus row');
select is(pg_temp.room_events(), '{"ann room.ended","ann room.finished cat","bob room.ended","bob room.finished cat","cat room.ended"}',
          'the others hear cat finished; everyone hears the end');
select is((select e.payload - 'room_id' from app.events e where e.type = 'room.ended' and e.user_id = test.uid('ann') order by e.id desc limit 1),
          '{"status": "completed", "bonus": 5}'::jsonb, '... completed, with each one''s bonus');
select is((select jsonb_agg(m ->> 'bonus') from jsonb_array_elements(
              (api.rooms_get(test.token('bob'), jsonb_build_object('id', (select id from rooms where name = 'completed')), '{}')).body -> 'room' -> 'members') m),
          '["5", "5", "5"]', 'GET /rooms/{id} shows each member''s bonus');
select is(test.error_of(format($$ insert into app.coin_ledger (user_id, entry, amount, reason, room_id) values (%L, 'bonus', 5, 'again', %L) $$,
                               test.uid('ann'), (select id from rooms where name = 'completed'))),
          '23505', 'a second bonus for a member and room is impossible');

select pg_temp.rewind((select id from rooms where name = 'completed'), interval '90 minutes');

-- 3. A room across midnight whose members vanish: bob finishes in time, ann and cat never do.
insert into rooms values ('vanished', pg_temp.room(20, array['bob', 'cat']));
select pg_temp.rewind((select id from rooms where name = 'vanished'), interval '22 minutes');
select api.focus_sessions_finish(test.token('bob'), pg_temp.session_of((select id from rooms where name = 'vanished'), 'bob'), '{}');
-- ... then the whole room moves back to start ten minutes before yesterday's midnight.
select pg_temp.rewind((select id from rooms where name = 'vanished'),
                      (select r.started_at - (test.day_start(1) - interval '10 minutes') from app.rooms r where r.id = (select id from rooms where name = 'vanished')));
select pg_temp.room_events();
update app.scheduled_jobs set next_run_at = now() - interval '1 second' where name in ('settle_rooms', 'prune');
update app.scheduled_jobs set next_run_at = now() + interval '1 hour' where name not in ('settle_rooms', 'prune');  -- the others' tests are theirs
-- Events committed for real at an earlier clock (the seed's, the dblink files') are past their
-- retention at a clock moved a week ahead, and the prune counts what it removes of them: expect
-- exactly those. It removes whole days past the retention and the old rows of the default
-- partition; a day not wholly past it (a run earlier on the same weekday) stays until it is.
create temp table expired_events as
select count(*) as n
from app.events e
join app.partitions('app.events') p on p.part = e.tableoid
where e.created_at < now() - (select s.retention from app.event_settings s)
  and (p.lower is null or p.upper <= now() - (select s.retention from app.event_settings s));
select is(api.jobs_run(), 2, 'the scheduler runs its two due jobs (settle_rooms, prune)');
select is((select string_agg(name || ' ' || last_result, ', ' order by name) from app.scheduled_jobs where last_run_at = now() and last_error is null),
          format('prune %s, settle_rooms 2', (select n from expired_events)), '... settling two members, without an error');
select is(pg_temp.outcomes((select id from rooms where name = 'vanished')), 'ann vanished, bob completed, cat vanished', 'ann and cat vanished');
select is((select string_agg(s.minutes || ' ' || (s.ended_at = test.day_start(1) + interval '10 minutes'), ', ' order by s.user_id)
           from app.focus_sessions s where s.id in (select m.session_id from app.room_members m where m.room_id = (select id from rooms where name = 'vanished'))),
          '20 true, 20 true, 20 true', 'their sessions end at the plan''s end, after midnight, as a late finish would end them');
select is(pg_temp.ledger((select id from rooms where name = 'vanished')), 'ann earn 20, bob earn 20, cat earn 20',
          'each keeps the coins of the plan''s minutes; no bonus');
select is(pg_temp.room_events(),
          '{"ann room.ended","ann room.gave_up cat","bob room.ended","bob room.gave_up ann","bob room.gave_up cat","cat room.ended","cat room.gave_up ann"}',
          'the others hear each vanished member; everyone hears the failed end');
select is((select status || ' ' || (ended_at = now()) from app.rooms where id = (select id from rooms where name = 'vanished')), 'failed true', 'the room failed');
select is(api.rooms_settle(), 0, 'settling again finds nothing');
select is(api.jobs_run(), 0, 'and the jobs are not due again before their next run');

-- 4. A room nobody starts is cancelled after room_settings.open_for.
insert into rooms values ('waited', ((api.rooms_create(test.token('ann'), '{}', '{"planned_minutes": 10}')).body -> 'room' ->> 'id')::uuid);
update app.rooms set created_at = now() - interval '1 day 1 minute' where id = (select id from rooms where name = 'waited');
select is(api.rooms_settle(), 1, 'the settlement cancels the room that waited a day');
select is((select status from app.rooms where id = (select id from rooms where name = 'waited')), 'cancelled', '... cancelled');

select * from finish();
rollback;
