-- Report plans: "filter on day" really uses an index (the UTC-day totals' primary key, the
-- friendship events' day expression), on tables large enough (5,000 days of totals in 8 shards,
-- 20,000 events over 5,000 days) that a sequential scan would be the planner's choice without
-- one. The totals are written straight in (what the triggers of 0013 keep is report_counters.sql).
begin;
select plan(5);
select test.new_user('dba');
insert into app.session_day_totals (day, source, shard, sessions, minutes, coins)
select (test.day_start(5000) at time zone 'UTC')::date + n, src, shard, 2, 20, 20
from generate_series(0, 4999) n, unnest(array['live', 'offline']) src, generate_series(0, 7) shard
on conflict do nothing;
insert into app.active_users_per_day (day, shard, users)
select (test.day_start(5000) at time zone 'UTC')::date + n, shard, 1 from generate_series(0, 4999) n, generate_series(0, 7) shard
on conflict do nothing;
insert into app.ledger_day_totals (day, shard, entries, earned, spent, granted)
select (test.day_start(5000) at time zone 'UTC')::date + n, shard, 1, 10, 0, 0 from generate_series(0, 4999) n, generate_series(0, 7) shard
on conflict do nothing;
-- Without their triggers (session_replication_role = replica): each would write an app.events
-- row, which this file does not read; 20,000 of them took 12 of its 15 s (2026-12-01).
set local session_replication_role = replica;
insert into app.friendship_events (request_id, user_low, user_high, actor, action, created_at)
select gen_random_uuid(), test.uid('dba'), test.uid('dba'), test.uid('dba'), 'asked', test.day_start(5000) + n * interval '6 hours'
from generate_series(0, 19999) n;
set local session_replication_role = origin;
analyze app.session_day_totals;
analyze app.active_users_per_day;
analyze app.ledger_day_totals;
analyze app.friendship_events;


-- The session views read the UTC-day totals of migration 0013 by their primary key, never the sessions.
select ok(p.plan ~ v.index and p.plan !~ 'focus_sessions',
          format('report.%s filtered on one day reads the %s index, not the sessions', v.view, v.index))
from (values ('daily_active_users', 'active_users_per_day_pkey'), ('focused_minutes_per_day', 'session_day_totals_pkey'),
             ('sessions_per_day_by_path', 'session_day_totals_pkey')) as v (view, index)
cross join lateral (select test.plan_of(format('select * from report.%I where day = %L', v.view,
                                                  (test.day_start(10) at time zone 'UTC')::date)) as plan) p;
select doesnt_match(test.plan_of(format('select * from report.coin_economy_per_day where day = %L', (test.day_start(10) at time zone 'UTC')::date)),
                    'coin_ledger', 'report.coin_economy_per_day reads the ledger''s UTC-day totals, not the ledger');
select matches(test.plan_of(format('select * from report.friendship_funnel_per_day where day = %L',
                                      (test.day_start(10) at time zone 'UTC')::date)),
               'friendship_events_day', 'report.friendship_funnel_per_day filtered on one day reads the friendship_events_day index');

select * from finish();
rollback;
