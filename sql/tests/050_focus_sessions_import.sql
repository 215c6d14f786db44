-- app.import_sessions (2026-12-06): a batch imported from app.session_import leaves exactly the
-- derived state that inserting the same rows through the row triggers leaves (the minutes
-- rollup and its counts, the UTC-day totals, the active users, the report views over them),
-- across time zones, days someone already focused on, a session of no minutes, both paths and
-- a deleted account. The trigger path runs first under a savepoint; its outcome is kept in a
-- psql variable, then rolled back, and the import runs on the same rows in batches of four.
-- By policy an import writes no events, pays nothing and grants nothing, and a row starting
-- before its account was made stops its batch. The triggers run again for the statements
-- after it.
begin;
select plan(12);
select test.new_user('ann'), test.new_user('bob'), test.new_user('cat'), test.new_user('dan');
update app.users set time_zone = 'Asia/Tokyo' where id = test.uid('bob');
update app.users set time_zone = 'America/New_York' where id = test.uid('cat');
-- Sessions already there: ann and bob focused two days ago (the import adds to their rows).
select test.session('ann', test.day_start(2) + interval '10 hours', 20),
       test.session('bob', test.day_start(2) + interval '10 hours', 25);
select api.erase_account(test.uid('dan'), null);

create temp table incoming as
select gen_random_uuid() as id, test.uid(r.name) as user_id, r.source,
       test.day_start(r.days_ago) + make_interval(hours => r.hour) - make_interval(mins => r.minutes, secs => 30) as started_at,
       test.day_start(r.days_ago) + make_interval(hours => r.hour) as ended_at, r.minutes, r.minutes = 0 as abandoned
from (values ('ann', 2, 14, 30, 'offline'), ('ann', 2, 20, 0, 'live'), ('ann', 9, 12, 45, 'offline'),
             ('bob', 2, 16, 50, 'offline'), ('bob', 3, 23, 15, 'live'), ('bob', 3, 2, 35, 'offline'),
             ('cat', 1, 3, 40, 'offline'), ('cat', 1, 22, 10, 'offline'), ('cat', 8, 12, 60, 'live'),
             ('dan', 4, 12, 30, 'offline')) as r (name, days_ago, hour, minutes, source);

-- Everything the row triggers keep for everyone, as one text.
create function pg_temp.derived() returns text language sql as $$
    select jsonb_build_object(
        'daily_minutes', (select jsonb_agg(d order by d.user_id, d.day) from app.daily_minutes d),
        'weekly_minutes', (select jsonb_agg(w order by w.user_id, w.week) from app.weekly_minutes w),
        'daily_counts', (select jsonb_agg(c order by c.day, c.minutes, c.shard) from app.daily_minutes_counts c where c.users <> 0),
        'weekly_counts', (select jsonb_agg(c order by c.week, c.minutes, c.shard) from app.weekly_minutes_counts c where c.users <> 0),
        'day_totals', (select jsonb_agg(t order by t.day, t.source, t.shard) from app.session_day_totals t),
        -- (but the client a user-day counts under, 0095: an import feeds no by-client rollup)
        'user_days', (select jsonb_agg(to_jsonb(u) - 'client_id' order by u.user_id, u.day) from app.session_user_days u),
        'active', (select jsonb_agg(a order by a.day, a.shard) from app.active_users_per_day a where a.users <> 0),
        'report_active', (select jsonb_agg(r order by r.day) from report.daily_active_users r),
        'report_minutes', (select jsonb_agg(r order by r.day) from report.focused_minutes_per_day r),
        'report_paths', (select jsonb_agg(r order by r.day, r.path) from report.sessions_per_day_by_path r))::text
$$;
create temp table mark as
select (select max(id) from app.events) as event_id, (select max(id) from app.coin_ledger) as ledger_id,
       (select count(*) from app.user_achievements) as unlocks;

savepoint one_by_one;
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, abandoned)
select i.id, i.user_id, i.source, i.started_at, i.ended_at, tstzrange(i.started_at, i.ended_at), i.minutes, i.abandoned
from incoming i order by i.id;
set constraints all immediate;
select pg_temp.derived() as one_by_one \gset
rollback to savepoint one_by_one;

insert into app.session_import (id, user_id, source, started_at, ended_at, minutes, abandoned)
select i.id, i.user_id, i.source, i.started_at, i.ended_at, i.minutes, i.abandoned from incoming i;
select is(app.import_sessions(4), 4, 'a batch moves batch_size rows');
select is((select count(*)::integer from app.session_import), 6, 'and takes them out of the staging table');
select is(app.import_sessions(4), 4, 'the next batch');
select is(app.import_sessions(4), 2, 'the last one, shorter');
select is(app.import_sessions(4), 0, 'then nothing is left');
set constraints all immediate;
select is(pg_temp.derived(), :'one_by_one',
          'the rollup, its counts, the day totals, the active users and the report views are those of the triggers');
select is_empty($$select * from report.counter_reconciliation$$, 'the counters agree with a recount');
select is((select count(*)::integer from app.focus_sessions s where s.id in (select id from incoming)), 10,
          'every row is a session');
select is((select (count(*) filter (where e.id > m.event_id), count(*) filter (where l.id > m.ledger_id))::text
           from mark m left join app.events e on e.id > m.event_id left join app.coin_ledger l on l.id > m.ledger_id),
          '(0,0)', 'no events, no ledger rows');
select is((select count(*) from app.user_achievements), (select unlocks from mark), 'no achievements');

-- After the import the triggers run as always: a session through them moves the rollup.
select test.session('cat', test.day_start(5) + interval '12 hours', 5);
select is((select d.minutes from app.daily_minutes d
           where d.user_id = test.uid('cat') and d.day = ((test.day_start(5) + interval '12 hours') at time zone 'America/New_York')::date),
          5, 'a session after the import goes through the triggers');

insert into app.session_import (id, user_id, started_at, ended_at, minutes)
values (gen_random_uuid(), test.uid('ann'), now() - interval '2 years', now() - interval '2 years' + interval '5 minutes', 5);
select throws_ok($$select app.import_sessions(10)$$, '23514', null, 'a row before its account was made stops the batch');
select * from finish();
rollback;
