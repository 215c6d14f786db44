-- Focus sessions: the coin formula and its settings, overlap, idempotent replay, daily cap,
-- validation, the live path on the server's clock, and stats.
begin;
select plan(26);
create temporary table student on commit drop as select test.new_user('focus@example.com') as account;
create function pg_temp.token() returns text language sql as $$ select account ->> 'token' from student $$;
create function pg_temp.uid() returns uuid language sql as $$ select test.user_id(account) from student $$;
-- An offline session from `ago` before now lasting `minutes`, with a given id.
create function pg_temp.body(id uuid, ago interval, minutes integer) returns jsonb language sql as $$
    select jsonb_build_object('id', id, 'started_at', api.iso(now() - ago),
                              'ended_at', api.iso(now() - ago + make_interval(mins => minutes)))
$$;
create function pg_temp.record(body jsonb) returns api.reply language sql as
$$ select api.record_session(pg_temp.token(), '{}', body) $$;
create function pg_temp.record_error(body jsonb) returns text language sql as
$$ select test.error_of(format('select api.record_session(%L, ''{}'', %L)', pg_temp.token(), body)) $$;
create function pg_temp.balance() returns integer language sql as $$ select balance from app.users where id = pg_temp.uid() $$;

-- The formula: floor(minutes * coins_per_minute) from min_minutes_to_earn on.
select is((pg_temp.record(pg_temp.body('00000000-0000-4000-8000-000000000001', '5 hours', 25))).body -> 'session' -> 'coins_earned',
          '25'::jsonb, '25 minutes at 1 coin a minute earn 25 coins');
select is(pg_temp.balance(), 25, 'the coins are on the balance');
select is((pg_temp.record(pg_temp.body('00000000-0000-4000-8000-000000000002', '4 hours', 9))).body -> 'session' -> 'coins_earned',
          '0'::jsonb, 'under min_minutes_to_earn (10) earns nothing');
update app.economy_settings set coins_per_minute = 1.5, min_minutes_to_earn = 5;
select is((pg_temp.record(pg_temp.body('00000000-0000-4000-8000-000000000003', '3 hours', 7))).body -> 'session' -> 'coins_earned',
          '10'::jsonb, 'with 1.5 coins a minute from 5 minutes on, 7 minutes earn floor(10.5) = 10');
update app.economy_settings set coins_per_minute = 1, min_minutes_to_earn = 10;

-- Idempotent replay.
select is((pg_temp.record(pg_temp.body('00000000-0000-4000-8000-000000000001', '5 hours', 25))).status, 200,
          'the same session again answers 200');
select is(pg_temp.balance(), 35, '... and earns nothing twice');
select is(pg_temp.record_error(pg_temp.body('00000000-0000-4000-8000-000000000001', '5 hours', 26)),
          'PT409 session_conflict', 'the same id with other times is session_conflict');
select is((select count(*)::integer from app.coin_ledger where user_id = pg_temp.uid() and entry = 'earn'), 2,
          'one earn row per paid session');
select is(test.error_of(format($$ insert into app.coin_ledger (user_id, entry, amount, reason, session_id)
                                  values (%L, 'earn', 5, 'again', '00000000-0000-4000-8000-000000000001') $$, pg_temp.uid())),
          '23505', 'the ledger itself refuses a second earning for a session');

-- Overlap.
select is(pg_temp.record_error(pg_temp.body('00000000-0000-4000-8000-000000000004', '5 hours 10 minutes', 20)),
          'PT409 session_overlap', 'a session overlapping another is session_overlap');
select is(test.error_of(format($$ insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
                                  values (gen_random_uuid(), %L, 'offline', now() - interval '290 minutes', now() - interval '280 minutes',
                                          tstzrange(now() - interval '290 minutes', now() - interval '280 minutes'), 10) $$, pg_temp.uid())),
          '23P01', 'the table itself refuses overlapping sessions');
select is(pg_temp.balance(), 35, 'refused sessions earned nothing');

-- Validation.
select is(pg_temp.record_error(jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(now() + interval '1 hour'),
                                                  'ended_at', api.iso(now() + interval '90 minutes'))),
          'PT422 invalid_session', 'a session ending in the future is invalid_session');
select is(pg_temp.record_error(jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(now() - interval '5 minutes'),
                                                  'ended_at', api.iso(now() + interval '1 minute'))),
          'ok', 'within two minutes of clock skew is accepted');
delete from app.focus_sessions where ended_at > now();  -- it would overlap the live session below
select is(pg_temp.record_error(jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(now() - interval '1 hour'),
                                                  'ended_at', api.iso(now() - interval '2 hours'))),
          'PT422 invalid_session', 'a session ending before it starts is invalid_session');
select is(pg_temp.record_error(pg_temp.body(gen_random_uuid(), '2 days', 181)), 'PT422 invalid_session',
          'a session longer than max_session_minutes is invalid_session');
select is(pg_temp.record_error(pg_temp.body(gen_random_uuid(), '8 days', 30)), 'PT422 invalid_session',
          'a session older than offline_max_age is invalid_session');
select is(pg_temp.record_error('{"id": "x", "started_at": "yesterday", "ended_at": 5}'), 'PT400 invalid_field',
          'malformed fields are invalid_field');

-- Daily cap on offline coins: 300 per UTC day.
-- Three 170-minute sessions on the UTC day three days ago (170 coins each before the cap).
create function pg_temp.day_start() returns timestamptz language sql as
$$ select date_trunc('day', (now() - interval '3 days') at time zone 'UTC') at time zone 'UTC' $$;
select pg_temp.record(jsonb_build_object('id', gen_random_uuid(),
                                         'started_at', api.iso(pg_temp.day_start() + make_interval(hours => n * 3)),
                                         'ended_at', api.iso(pg_temp.day_start() + make_interval(hours => n * 3, mins => 170))))
from generate_series(0, 2) n;
select is((select array_agg(coins_earned order by started_at) from app.focus_sessions where user_id = pg_temp.uid()
           and started_at >= pg_temp.day_start() and started_at < pg_temp.day_start() + interval '1 day'),
          array[170, 130, 0], 'offline sessions earn at most 300 coins per UTC day');
select is_empty('select * from report.ledger_reconciliation', 'balances still equal ledger sums');

-- The live path: minutes from the server's clock, at most the plan.
create temporary table live on commit drop as
select (api.start_session(pg_temp.token(), '{}', '{"planned_minutes": 25}')).body as started;
select is(test.error_of(format('select api.start_session(%L, ''{}'', ''{"planned_minutes": 25}'')', pg_temp.token())),
          'PT409 session_in_progress', 'a second live session while one runs is session_in_progress');
update app.focus_sessions set started_at = now() - interval '40 minutes',
       occupies = tstzrange(now() - interval '40 minutes', now() + interval '140 minutes')
where id = (select (started ->> 'id')::uuid from live);
select is((api.finish_session(pg_temp.token(), jsonb_build_object('id', (select started ->> 'id' from live)), '{}')).body -> 'session' -> 'minutes',
          '25'::jsonb, 'finishing 40 minutes after a 25-minute plan counts 25 minutes');
select is((api.finish_session(pg_temp.token(), jsonb_build_object('id', (select started ->> 'id' from live)), '{}')).body -> 'session' -> 'coins_earned',
          '25'::jsonb, 'finishing again answers the same and pays once');
select is(test.error_of(format('select api.finish_session(%L, %L, ''{}'')', (test.new_user('other@example.com') ->> 'token'),
                               jsonb_build_object('id', (select started ->> 'id' from live)))),
          'PT404 session_not_found', 'someone else''s session is not found');

-- Stats.
select is((api.my_stats(pg_temp.token(), '{}', '{}')).body -> 'total_coins_earned',
          to_jsonb((select sum(coins_earned)::integer from app.focus_sessions where user_id = pg_temp.uid())),
          'stats total coins equal the sessions'' coins');
select ok(((api.my_stats(pg_temp.token(), '{}', '{}')).body ->> 'longest_streak_days')::integer >= 2,
          'sessions on consecutive days make a streak');

select * from finish();
rollback;
