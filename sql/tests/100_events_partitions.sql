-- app.events is partitioned by UTC day (sql/app/160_partitions.sql, 0045): the partitions job
-- makes the days ahead, a row of now always has a day partition (and any row a home: the
-- default partition), and the prune drops a day whole once its end is past the retention,
-- counting its rows and raising pruned_through. Days are slots from now() (app.partition_slot).
begin;
select plan(26);
select test.new_user('pat');

-- created_at is indexed where the prune reads by it, the default partition, and nowhere else: an
-- index across the day partitions would cost every event a B-tree entry for no reader (0100).
select has_index('app', 'events_part_default', 'events_part_default_created_at', array['created_at'],
                 'the default partition keeps its rows'' created_at indexed for the prune');
select is((select count(*)::integer from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
           where i.indrelid in (select p.part from app.partitions('app.events') p where not p.is_default)
             and a.attname = 'created_at' and i.indnatts = 1),
          0, 'no day partition has an index on created_at alone');

-- The job runs every 10 minutes; the clock may have passed a midnight since it last did.
select ok((select result from api.job_step('partitions')) >= 0, 'the partitions job runs');
select ok((select max(p.upper) from app.partitions('app.events') p) >= now() + interval '3 days',
          'the partitions reach three days ahead');
select is((select count(*)::integer from app.partitions('app.events') p where p.is_default), 1, 'there is one default partition');
insert into app.events (user_id, type, payload) values (test.uid('pat'), 'balance.changed', '{"balance": 1}');
select is((select tableoid::regclass::text from app.events where user_id = test.uid('pat') and payload ->> 'balance' = '1'),
          'app.events_part_' || to_char(now() at time zone 'UTC', 'YYYYMMDD'), 'a row of now lands in its day''s partition');

-- The job makes a missing day again, and only that one.
select is((select result from api.job_step('partitions')), 0, 'run again, the partitions job finds nothing to make');
select (select format('drop table %s', p.part) from app.partitions('app.events') p where not p.is_default order by p.upper desc limit 1) as last_day \gset
:last_day;
select is(test.error_as('focus_api', $$ select * from api.job_step('partitions') $$), 'ok', 'the partitions job runs as focus_api ...');
select ok((select max(p.upper) from app.partitions('app.events') p) >= now() + interval '3 days', '... and made the day dropped again');
-- A day missing before the newest (as after a clock set back): made again, and only it.
select format('drop table app.events_part_%s', to_char((now() + interval '1 day') at time zone 'UTC', 'YYYYMMDD')) as tomorrow \gset
:tomorrow;
select is((select result from api.job_step('partitions')), 1, 'a day missing before the newest is made again ...');
select ok(exists (select from app.partitions('app.events') p
                  where p.lower = app.partition_slot(now() + interval '1 day', interval '1 day')), '... tomorrow''s');
-- A day whose rows the default partition holds is skipped (its ATTACH would fail, 23514), and the
-- days after it are still made.
create temporary table ahead_days as
select app.partition_slot(now() + make_interval(days => d), interval '1 day') as lower, d from generate_series(2, 3) d;
select format('drop table app.events_part_%s', to_char(lower at time zone 'UTC', 'YYYYMMDD')) from ahead_days \gexec
insert into app.events (user_id, type, payload, created_at)
values (test.uid('pat'), 'balance.changed', '{"balance": 3}', (select lower from ahead_days where d = 2) + interval '1 hour');
select is((select result from api.job_step('partitions')), 1, 'a day held in the default partition is skipped, the day after it made');
select is((select array_agg(a.d order by a.d) from ahead_days a join app.partitions('app.events') p on p.lower = a.lower), array[3],
          '... only the day after');
select is((select tableoid::regclass::text from app.events where payload ->> 'balance' = '3'), 'app.events_part_default',
          'the held day''s row stays readable in the default partition');

-- A day ten days ago, past the retention (7 days), with two events: dropped whole by the prune.
create temporary table old_day as select app.partition_slot(now(), interval '1 day') - interval '10 days' as lower;
create table app.events_part_test (like app.events including defaults including constraints);
alter table app.events_part_test owner to focus_owner;  -- as the partitions job makes them
select format('alter table app.events attach partition app.events_part_test for values from (%L) to (%L)',
              (select lower from old_day), (select lower + interval '1 day' from old_day)) as attach \gset
:attach;
insert into app.events (user_id, type, payload, created_at)
select test.uid('pat'), 'balance.changed', '{"balance": 2}', (select lower from old_day) + interval '1 hour' * g from generate_series(1, 2) g;
select is((select count(*)::integer from app.events_part_test), 2, 'the old events are in their day''s partition');
select ok(exists (select from app.partitions('app.events') p where p.part = 'app.events_part_test'::regclass
                                                               and p.upper <= now() - interval '7 days'), 'which is expired');
create temporary table old_ids as select id from app.events_part_test;
update app.scheduled_jobs set next_run_at = now() - interval '1 second' where name = 'prune';
update app.scheduled_jobs set next_run_at = now() + interval '1 hour' where name <> 'prune';
select is(api.jobs_run(), 1, 'the prune job runs');
select is((select last_error from app.scheduled_jobs where name = 'prune'), null, '... without an error');
select is((select last_result from app.scheduled_jobs where name = 'prune') >= 2, true, 'and counts the dropped day''s events');
select is(to_regclass('app.events_part_test'), null, 'the day is dropped whole, its rows with it');
select ok((select pruned_through from app.event_settings) >= (select max(id) from old_ids),
          'pruned_through is at least the highest id dropped (a cursor below it is answered with a resync)');

-- A backlog of days: app.prune_events() (a DBA's, one transaction) drops every expired day,
-- oldest first, each counted before the first drop locks app.events (app.partitions_drop_expired).
create temporary table backlog as
select d, app.partition_slot(now(), interval '1 day') - make_interval(days => d) as lower from generate_series(11, 12) d;
select format('create table app.events_part_test%s (like app.events including defaults including constraints)', d),
       format('alter table app.events_part_test%s owner to focus_owner', d),
       format('alter table app.events attach partition app.events_part_test%s for values from (%L) to (%L)',
              d, lower, lower + interval '1 day')
from backlog \gexec
insert into app.events (user_id, type, payload, created_at)
select test.uid('pat'), 'balance.changed', '{"balance": 3}', b.lower + interval '1 hour' * g
from backlog b, generate_series(1, b.d - 9) g;  -- 2 events on day 11, 3 on day 12
create temporary table backlog_ids as select id from app.events where payload ->> 'balance' = '3';
select is(app.prune_events(), 5, 'app.prune_events() removes every expired day at once, counting their rows');
select is((select count(*)::integer from pg_class c where c.relname in ('events_part_test11', 'events_part_test12')), 0,
          '... each day dropped whole');
select is((select pruned_through from app.event_settings), (select max(id) from backlog_ids),
          '... and pruned_through is the highest id of the newest day dropped');
select is((select count(*)::integer from app.events where user_id = test.uid('pat') and payload ->> 'balance' = '1'), 1,
          'the event of now is untouched');
select is((select (d.rows, d.last_id)::text from app.partitions_drop_expired('app.events', interval '7 days') d), '(0,)',
          'with no day expired, app.partitions_drop_expired drops nothing and names no id');

select * from finish();
rollback;
