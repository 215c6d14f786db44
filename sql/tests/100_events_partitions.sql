-- app.events is partitioned by UTC day (sql/app/160_partitions.sql, 0045): the partitions job
-- makes the days ahead, a row of now always has a day partition (and any row a home: the
-- default partition), and the prune drops a day whole once its end is past the retention,
-- counting its rows and raising pruned_through. Days are slots from now() (app.partition_slot).
begin;
select plan(14);
select test.new_user('pat');

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

select * from finish();
rollback;
