-- app.login_failures is partitioned by UTC day of failed_at (0049): the partitions job makes the
-- days ahead, a failure of now lands in its day, a day past the retention (30 days) is dropped
-- whole by the prune, and a row of a day without a partition waits in the default partition,
-- deleted once past the retention as before. Days are slots from now() (app.partition_slot).
begin;
select plan(9);
select test.new_user('lee');

-- The job runs every 10 minutes; the clock may have passed a midnight since it last did.
select ok((select result from api.job_step('partitions')) >= 0, 'the partitions job runs');
select ok((select max(p.upper) from app.partitions('app.login_failures') p) >= now() + interval '3 days',
          'the partitions reach three days ahead');
select is((select count(*)::integer from app.partitions('app.login_failures') p where p.is_default), 1,
          'there is one default partition');
select is(test.answer_of($$ select api.auth_login(null, '{"client_ip": "192.0.2.7"}', '{"email": "lee@example.com", "password": "wrong horse"}') $$),
          'PT401 invalid_credentials', 'a wrong password ...');
select is((select tableoid::regclass::text from app.login_failures where email = 'lee@example.com'),
          'app.login_failures_part_' || to_char(now() at time zone 'UTC', 'YYYYMMDD'), '... is recorded in its day''s partition');

-- A day 40 days ago, past the retention, with two failures; one more in the default partition.
create temporary table old_day as select app.partition_slot(now(), interval '1 day') - interval '40 days' as lower;
create table app.login_failures_part_test (like app.login_failures including defaults including constraints);
alter table app.login_failures_part_test owner to focus_owner;  -- as the partitions job makes them
select format('alter table app.login_failures attach partition app.login_failures_part_test for values from (%L) to (%L)',
              (select lower from old_day), (select lower + interval '1 day' from old_day)) as attach \gset
:attach;
insert into app.login_failures (email, client_ip, failed_at)
select 'lee@example.com', '192.0.2.8', (select lower from old_day) + interval '1 hour' * g from generate_series(1, 2) g;
insert into app.login_failures (email, client_ip, failed_at) values ('lee@example.com', '192.0.2.9', now() - interval '35 days');
select is((select count(*)::integer from app.login_failures_part_test), 2, 'the old failures are in their day''s partition');
update app.scheduled_jobs set next_run_at = now() - interval '1 second' where name = 'prune';
update app.scheduled_jobs set next_run_at = now() + interval '1 hour' where name <> 'prune';
select api.jobs_run();
select is(to_regclass('app.login_failures_part_test'), null, 'the prune job drops the expired day whole, its rows with it');
select is((select count(*)::integer from app.login_failures_part_default where email = 'lee@example.com'), 0,
          'and deletes the default partition''s failures past the retention');
select is((select count(*)::integer from app.login_failures where email = 'lee@example.com'), 1, 'today''s failure stays');

select * from finish();
rollback;
