-- app.idempotency_keys is partitioned by UTC day (0063): the partitions job makes the days
-- ahead, a key of now lands in its day, an expired day is dropped whole by the prune, and
-- (scope, key) stays unique across the partitions without a unique index: the trigger
-- app.idempotency_keys_unique refuses a second row of a key (23505) and, under the key's lock,
-- makes a racing writer wait for the first and then see its row. The race runs in two other
-- sessions (dblink), which commit for real: their rows name an email of this file only, and
-- are deleted at the end.
begin;
select plan(16);
create extension if not exists dblink;
-- The job runs every 10 minutes; the clock may have passed a midnight since it last did. It runs
-- in a session of its own and commits, as the job does: an ATTACH in this transaction would hold
-- the default partition's lock, which the racing sessions below would wait for, and this one
-- for them. First, before this transaction writes a row anywhere.
select dblink_connect('job', test.dblink_conninfo());
select ok((select t.made from dblink('job', $$ select result from api.job_step('partitions') $$) as t(made integer)) >= 0,
          'the partitions job runs');
select dblink_disconnect('job');
select test.new_user('ann');

select ok((select max(p.upper) from app.partitions('app.idempotency_keys') p) >= now() + interval '3 days',
          'the partitions reach three days ahead');
select is((select count(*)::integer from app.partitions('app.idempotency_keys') p where p.is_default), 1,
          'there is one default partition');
select api.idempotent('api.focus_sessions_start', test.token('ann'),
                      jsonb_build_object('idempotency_key', 'start-1', 'client_ip', '192.0.2.1'), '{"planned_minutes": 25}');
select is((select tableoid::regclass::text from app.idempotency_keys where key = 'start-1'),
          'app.idempotency_keys_part_' || to_char(now() at time zone 'UTC', 'YYYYMMDD'), 'a key of now lands in its day''s partition');

-- Unique across the partitions: the same key again, as a row of another day, is refused.
select is(test.error_of(format($$ insert into app.idempotency_keys (scope, key, route, request_digest, created_at)
                                  values ('user:%s', 'start-1', 'api.focus_sessions_start', '\x00', now() - interval '2 days') $$,
                               test.uid('ann'))),
          '23505', 'a second row of a key is unique_violation, even in another partition');
select is(test.error_of(format($$ insert into app.idempotency_keys (scope, key, route, request_digest)
                                  values ('user:%s', 'start-2', 'api.focus_sessions_start', '\x00') $$, test.uid('ann'))),
          'ok', 'another key of the scope is not');

-- Two writers of one key at once: the second waits for the first, then sees its row.
create temporary table race as select 'race-' || gen_random_uuid() || '@example.com' as email;
select dblink_connect('first', test.dblink_conninfo());
select dblink_connect('second', test.dblink_conninfo());
select dblink_exec('second', 'set lock_timeout = ''10s''');
create temporary table second_pid as select t.pid from dblink('second', 'select pg_backend_pid()') as t(pid integer);
select dblink_exec('first', 'begin');
select dblink_exec('first', format($$ insert into app.idempotency_keys (scope, key, route, request_digest)
                                      values ('email:%s', 'k', 'api.auth_login', '\x00') $$, (select email from race)));
select dblink_send_query('second', format($$ insert into app.idempotency_keys (scope, key, route, request_digest)
                                             values ('email:%s', 'k', 'api.auth_login', '\x00') $$, (select email from race)));
select pg_sleep(0.3);
select is(dblink_is_busy('second'), 1, 'a second writer of the key waits while the first has not committed');
select ok(exists (select from pg_locks l where l.pid = (select pid from second_pid) and l.locktype = 'advisory' and not l.granted),
          '... for the key''s lock');
select dblink_exec('first', 'commit');
set local client_min_messages = warning;  -- dblink_get_result tells the refusal as a notice too
select is((select count(*)::integer from dblink_get_result('second', false) as t(state text)), 0, 'once the first commits, ...');
reset client_min_messages;
select is(split_part(dblink_error_message('second'), E'\n', 1), 'ERROR:  duplicate Idempotency-Key in app.idempotency_keys',
          '... the second is refused');
select count(*) from dblink_get_result('second', false) as t(state text);  -- the end of its results
select is((select count(*)::integer from app.idempotency_keys k where k.scope = 'email:' || (select email from race)), 1,
          'one row of the key');

-- The same race through api.idempotent: a wrong password recorded once, its answer replayed.
select dblink_exec('first', 'begin');
select is((select t.status from dblink('first', format($$ select (api.idempotent('api.auth_login', null, '{"idempotency_key": "login-1", "client_ip": "192.0.2.9", "seal_key": "ssssssssssssssssssssssssssssssss"}',
                                                                             jsonb_build_object('email', %L, 'password', 'wrong horse'))).status $$,
                                                        (select email from race))) as t(status integer)),
          401, 'the first login with a key answers 401 ...');
select dblink_send_query('second', format($$ select (api.idempotent('api.auth_login', null, '{"idempotency_key": "login-1", "client_ip": "192.0.2.9", "seal_key": "ssssssssssssssssssssssssssssssss"}',
                                                                    jsonb_build_object('email', %L, 'password', 'wrong horse'))).status $$,
                                          (select email from race)));
select pg_sleep(0.3);
select is(dblink_is_busy('second'), 1, 'the same request racing it waits');
select dblink_exec('first', 'commit');
select is((select t.status from dblink_get_result('second') as t(status integer)), 401, '... and replays the 401 once the first commits');
select is((select count(*)::integer from app.login_failures f where f.email = (select email from race)), 1,
          'the failure was recorded once: one execution');
-- The other sessions' rows, gone before this one takes locks they would wait for.
select dblink_exec('first', format('delete from app.login_failures where email = %L', (select email from race)));
select dblink_exec('first', format('delete from app.idempotency_keys where scope = %L', 'email:' || (select email from race)));
select dblink_disconnect('first');
select dblink_disconnect('second');

-- An expired day, dropped whole by the prune job.
-- A day before every partition the table has (the clusters' partitions reach back to the day
-- they were made), and past the retention.
create temporary table old_day as
select least(app.partition_slot(now(), interval '1 day') - interval '3 days',
             (select min(p.lower) from app.partitions('app.idempotency_keys') p) - interval '1 day') as lower;
create table app.idempotency_keys_part_test (like app.idempotency_keys including defaults including constraints);
alter table app.idempotency_keys_part_test owner to focus_owner;  -- as the partitions job makes them
select format('alter table app.idempotency_keys attach partition app.idempotency_keys_part_test for values from (%L) to (%L)',
              (select lower from old_day), (select lower + interval '1 day' from old_day)) as attach \gset
:attach;
insert into app.idempotency_keys (scope, key, route, request_digest, created_at)
select 'user:' || test.uid('ann'), 'old-' || g, 'api.focus_sessions_start', '\x00', (select lower from old_day) + interval '1 hour' * g
from generate_series(1, 2) g;
update app.scheduled_jobs set next_run_at = now() - interval '1 second' where name = 'prune';
update app.scheduled_jobs set next_run_at = now() + interval '1 hour' where name <> 'prune';
select api.jobs_run();
select is(to_regclass('app.idempotency_keys_part_test'), null, 'the prune job drops the expired day whole, its keys with it');

select * from finish();
rollback;
