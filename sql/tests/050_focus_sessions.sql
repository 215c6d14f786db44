-- Focus sessions: the coin formula and its settings, overlap, idempotent replay, daily cap,
-- validation, the live path on the server's clock, listing, and stats by UTC day.
-- Offline sessions are placed on whole UTC days (test.day_start), which are the same days
-- whenever the suite runs; only what is about the clock itself (skew, the live path) is
-- relative to now().
begin;
select plan(34);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user('student');
-- An offline session's body: `minutes` long from `starts`.
create function pg_temp.body(id uuid, starts timestamptz, minutes integer) returns jsonb language sql as $$
    select jsonb_build_object('id', id, 'started_at', api.iso(starts), 'ended_at', api.iso(starts + make_interval(mins => minutes)))
$$;
create function pg_temp.balance() returns integer language sql as $$ select balance from app.users where id = test.uid('student') $$;

-- The formula: floor(minutes * coins_per_minute) from min_minutes_to_earn on.
-- Yesterday's sessions: always past, within offline_max_age, and alone under that day's cap.
select is((api.focus_sessions_create(test.token('student'), '{}',
               pg_temp.body('00000000-0000-4000-8000-000000000001', test.day_start(1) + interval '9 hours', 25))).body -> 'session' -> 'coins_earned',
          '25'::jsonb, '25 minutes at 1 coin a minute earn 25 coins');
select is(pg_temp.balance(), 25, 'the coins are on the balance');
select is((api.focus_sessions_create(test.token('student'), '{}',
               pg_temp.body('00000000-0000-4000-8000-000000000002', test.day_start(1) + interval '10 hours', 9))).body -> 'session' -> 'coins_earned',
          '0'::jsonb, 'under min_minutes_to_earn (10) earns nothing');
update app.economy_settings set coins_per_minute = 1.5, min_minutes_to_earn = 5;
select is((api.focus_sessions_create(test.token('student'), '{}',
               pg_temp.body('00000000-0000-4000-8000-000000000003', test.day_start(1) + interval '11 hours', 7))).body -> 'session' -> 'coins_earned',
          '10'::jsonb, 'with 1.5 coins a minute from 5 minutes on, 7 minutes earn floor(10.5) = 10');
update app.economy_settings set coins_per_minute = 1, min_minutes_to_earn = 10;

-- Idempotent replay.
select is((api.focus_sessions_create(test.token('student'), '{}',
               pg_temp.body('00000000-0000-4000-8000-000000000001', test.day_start(1) + interval '9 hours', 25))).status,
          200, 'the same session again answers 200');
select is(pg_temp.balance(), 35, '... and earns nothing twice');
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}',
                               pg_temp.body('00000000-0000-4000-8000-000000000001', test.day_start(1) + interval '9 hours', 26)) $$),
          'PT409 session_conflict', 'the same id with other times is session_conflict');
select is((select count(*)::integer from app.coin_ledger where user_id = test.uid('student') and entry = 'earn'), 2,
          'one earn row per paid session');
select is(test.error_of($$ insert into app.coin_ledger (user_id, entry, amount, reason, session_id)
                           values (test.uid('student'), 'earn', 5, 'again', '00000000-0000-4000-8000-000000000001') $$),
          '23505', 'the ledger itself refuses a second earning for a session');

-- Overlap with yesterday's 09:00-09:25 session.
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}',
                               pg_temp.body(gen_random_uuid(), test.day_start(1) + interval '8 hours 50 minutes', 20)) $$),
          'PT409 session_overlap', 'a session overlapping another is session_overlap');
select is(test.error_of($$ insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
                           select gen_random_uuid(), test.uid('student'), 'offline', t, t + interval '10 minutes',
                                  tstzrange(t, t + interval '10 minutes'), 10
                           from (select test.day_start(1) + interval '9 hours 10 minutes' as t) x $$),
          '23P01', 'the table itself refuses overlapping sessions');
select is(pg_temp.balance(), 35, 'refused sessions earned nothing');

-- Validation. Skew and the future are about the clock itself, so these are relative to now().
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}',
                               jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(now() + interval '1 hour'),
                                                  'ended_at', api.iso(now() + interval '90 minutes'))) $$),
          'PT422 invalid_session', 'a session ending in the future is invalid_session');
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}',
                               jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(now() - interval '5 minutes'),
                                                  'ended_at', api.iso(now() + interval '1 minute'))) $$),
          'ok', 'within two minutes of clock skew is accepted');
delete from app.focus_sessions where ended_at > now();  -- it would overlap the live session below
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}',
                               jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(now() - interval '1 hour'),
                                                  'ended_at', api.iso(now() - interval '2 hours'))) $$),
          'PT422 invalid_session', 'a session ending before it starts is invalid_session');
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}',
                               pg_temp.body(gen_random_uuid(), test.day_start(2) + interval '8 hours', 181)) $$),
          'PT422 invalid_session', 'a session longer than max_session_minutes is invalid_session');
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}',
                               pg_temp.body(gen_random_uuid(), test.day_start(8) + interval '8 hours', 30)) $$),
          'PT422 invalid_session', 'a session older than offline_max_age (7 days) is invalid_session');
select is(test.error_of($$ select api.focus_sessions_create(test.token('student'), '{}', '{"id": "x", "started_at": "yesterday", "ended_at": 5}') $$),
          'PT400 invalid_field', 'malformed fields are invalid_field');

-- Daily cap on offline coins: 300 per UTC day of a session's end.
-- Three 170-minute sessions on the UTC day three days ago (170 coins each before the cap).
select api.focus_sessions_create(test.token('student'), '{}', pg_temp.body(gen_random_uuid(), test.day_start(3) + make_interval(hours => n * 3), 170))
from generate_series(0, 2) n;
select is((select array_agg(coins_earned order by started_at) from app.focus_sessions where user_id = test.uid('student')
           and started_at >= test.day_start(3) and started_at < test.day_start(2)),
          array[170, 130, 0], 'offline sessions earn at most 300 coins per UTC day');
-- Around that day's midnight: 30 minutes ending at 23:50 (the capped day), 30 ending at 00:20 (the next).
select api.focus_sessions_create(test.token('student'), '{}', pg_temp.body(id, test.day_start(2) + starts, 30))
from (values ('00000000-0000-4000-8000-0000000000c1'::uuid, interval '-40 minutes'),
             ('00000000-0000-4000-8000-0000000000c2'::uuid, interval '-10 minutes')) v(id, starts);
select is((select array_agg(coins_earned order by started_at) from app.focus_sessions
           where id in ('00000000-0000-4000-8000-0000000000c1', '00000000-0000-4000-8000-0000000000c2')),
          array[0, 30], 'the cap counts a session on the UTC day it ends: across midnight it earns from the new day''s cap');
select is_empty('select * from report.ledger_reconciliation', 'balances still equal ledger sums');

-- The live path: minutes from the server's clock, at most the plan.
create temporary table live on commit drop as
select ((api.focus_sessions_start(test.token('student'), '{}', '{"planned_minutes": 25}')).body #>> '{session,id}')::uuid as id;
select is(test.error_of($$ select api.focus_sessions_start(test.token('student'), '{}', '{"planned_minutes": 25}') $$),
          'PT409 session_in_progress', 'a second live session while one runs is session_in_progress');
update app.focus_sessions set started_at = now() - interval '40 minutes',
       occupies = tstzrange(now() - interval '40 minutes', now() + interval '140 minutes')
where id = (select id from live);
select is((api.focus_sessions_finish(test.token('student'), jsonb_build_object('id', (select id from live)), '{}')).body -> 'session' -> 'minutes',
          '25'::jsonb, 'finishing 40 minutes after a 25-minute plan counts 25 minutes');
select is((api.focus_sessions_finish(test.token('student'), jsonb_build_object('id', (select id from live)), '{}')).body -> 'session' -> 'coins_earned',
          '25'::jsonb, 'finishing again answers the same and pays once');
select test.new_user('other');
select is(test.error_of($$ select api.focus_sessions_finish(test.token('other'), jsonb_build_object('id', (select id from live)), '{}') $$),
          'PT404 session_not_found', 'someone else''s session is not found');

select is((api.me_stats_get(test.token('student'), '{}', '{}')).body -> 'total_coins_earned',
          to_jsonb((select sum(coins_earned)::integer from app.focus_sessions where user_id = test.uid('student'))),
          'stats total coins equal the sessions'' coins');

-- Stats and listing from sessions on known UTC days. Each session ENDS at the first instant
-- of its day (so it started the evening before): days count by a session's end, and today's
-- session is already over at 00:00:03. Days with minutes: today, 1, 2 days ago (a current run
-- of 3); 4 to 7 days ago (the longest run, 4); none 3 days ago.
select test.new_user('streaker');
create temporary table streak_days on commit drop as
select * from (values (0, 30), (1, 20), (2, 15), (4, 10), (5, 10), (6, 10), (7, 10)) v(days_ago, minutes);
select test.session('streaker', test.day_start(days_ago), minutes) from streak_days;
create temporary table stats on commit drop as select (api.me_stats_get(test.token('streaker'), '{}', '{}')).body;

select is((select body -> 'today_minutes' from stats), '30'::jsonb,
          'today''s minutes are those of the session that ended at 00:00 UTC today, not of yesterday''s');
select is((select body -> 'week_minutes' from stats),
          to_jsonb((select sum(minutes)::integer from streak_days where test.day_start(days_ago) >= test.week_start())),
          'week minutes count the days since Monday 00:00 UTC');
select is((select body -> 'total_minutes' from stats), '105'::jsonb, 'total minutes count every day');
select is((select body -> 'current_streak_days' from stats), '3'::jsonb,
          'the current streak is the run of days ending today: 3');
select is((select body -> 'longest_streak_days' from stats), '4'::jsonb,
          'sessions on consecutive days make a streak: the longest run is 4 days');

-- A run is current while its last day is today or yesterday.
select test.new_user('resting');
select test.session('resting', test.day_start(n), 20) from generate_series(1, 2) n;
select is((api.me_stats_get(test.token('resting'), '{}', '{}')).body -> 'current_streak_days', '2'::jsonb,
          'a streak whose last day is yesterday is still current');
select test.new_user('lapsed');
select test.session('lapsed', test.day_start(n), 20) from generate_series(2, 3) n;
select is((api.me_stats_get(test.token('lapsed'), '{}', '{}')).body -> 'current_streak_days', '0'::jsonb,
          'a streak whose last day was the day before yesterday is over');

select is((api.focus_sessions_list(test.token('streaker'), jsonb_build_object('from', api.iso(test.day_start(2)), 'to', api.iso(test.day_start())),
                             '{}')).body -> 'total_minutes',
          '50'::jsonb, 'list_sessions takes sessions by their start in [from, to): the two started 1 and 2 days ago, not the one started 3 days ago');

select * from finish();
rollback;
