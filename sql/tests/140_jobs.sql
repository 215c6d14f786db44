-- The scheduled jobs as the server's job runner drives them (sql/api/140_jobs.sql): the due
-- jobs, shortest budget first; a claim moves the next run at once, so a second claim of the
-- same run finds nothing; the prune deletes at most 1000 rows of each table a step and says
-- when there is more; how a run ended is recorded (a failure's error, when, how many in a row;
-- a success puts the count back to 0; a run stopped near its budget comes again in a minute);
-- report.scheduled_job_status shows it; the budget stays below the job's period. That a budget
-- cancels a step and the jobs after it still run is shown by JobsHTTPTests (the cancel rolls
-- back the step's own transaction, which one pgTAP transaction cannot show).
begin;
select plan(22);

-- Nothing past its retention but what this file adds.
select app.prune_idempotency_keys(), app.prune_personal_data(), app.prune_events();
update app.scheduled_jobs set next_run_at = now() + interval '1 hour', last_error = null, failures = 0;
update app.scheduled_jobs set next_run_at = now() - interval '1 second' where name in ('prune', 'settle_rooms');

select is((select string_agg(job || ' ' || budget_ms, ', ') from api.jobs_due()), 'settle_rooms 10000, prune 30000',
          'the due jobs, the shortest budget first, each with its budget in milliseconds');
select is(api.job_claim('prune'), 30000, 'a claim answers the job''s budget');
select is((select next_run_at = now() + every from app.scheduled_jobs where name = 'prune'), true,
          '... and moves its next run `every` later at once');
select is(api.job_claim('prune'), null, 'a second claim of the same run finds it not due');
select is((select string_agg(job, ', ') from api.jobs_due()), 'settle_rooms', '... and it is no longer listed');

-- 2500 Idempotency-Keys and 1200 events past their retention: three steps.
insert into app.idempotency_keys (scope, key, route, request_digest, created_at)
select 'jobs-test', 'k' || i, 'POST /gifts', '\x00', now() - interval '2 days' from generate_series(1, 2500) i;
insert into app.events (user_id, type, created_at)
select null, 'tips.changed', now() - interval '8 days' from generate_series(1, 1200);
create temporary table added on commit drop as select max(id) as last from app.events;
select is((select (result, more)::text from api.job_step('prune')), '(1000,t)',
          'a prune step deletes 1000 events (and 1000 keys) and says there is more');
select is((select (result, more)::text from api.job_step('prune')), '(200,t)',
          '... the next the other 200 events, and 1000 keys: more');
select is((select (result, more)::text from api.job_step('prune')), '(0,f)', '... the last the 500 keys left: done');
select is((select count(*) from app.idempotency_keys where scope = 'jobs-test'), 0::bigint, 'every key past its retention is gone');
select is((select pruned_through from app.event_settings), (select last from added), '... and every event: pruned_through says so');
select is((select (result, more)::text from api.job_step('settle_rooms')), '(0,f)', 'settle_rooms is one step');
select throws_ok($$select * from api.job_step('no_such_job')$$, '22023', 'no scheduled job no_such_job', 'a name that is no job: 22023');

-- How runs end.
select is(api.job_finished('prune', 1200, null), 0, 'a run that succeeded: no failures in a row');
select is((select (failing, last_result, consecutive_failures, last_run_at = now())::text from report.scheduled_job_status where job = 'prune'),
          '(f,1200,0,t)', '... the report shows its result, not failing');
select is(api.job_finished('prune', 7, 'past its budget of 30000 ms: canceling statement due to statement timeout'), 1,
          'a run past its budget: one failure');
select is(api.job_finished('prune', 0, 'past its budget of 30000 ms: canceling statement due to statement timeout'), 2, '... two in a row');
select is((select (failing, last_result, consecutive_failures, last_failed_at = now(), last_error)::text
           from report.scheduled_job_status where job = 'prune'),
          '(t,0,2,t,"past its budget of 30000 ms: canceling statement due to statement timeout")',
          'the report shows it failing, since when, how many runs in a row and why');
select is((select next_run_at = now() + every from app.scheduled_jobs where name = 'prune'), true,
          'a failure leaves the next run where the claim put it');
select is(api.job_finished('prune', 3000, null, true), 0, 'a run stopped near its budget with work left succeeded');
select is((select (j.next_run_at = now() + interval '1 minute', s.failing, s.last_failed_at = now())::text
           from app.scheduled_jobs j join report.scheduled_job_status s on s.job = j.name where j.name = 'prune'),
          '(t,f,t)', '... and comes again in a minute; the last failure''s time stays');

-- The budget.
select throws_ok($$update app.scheduled_jobs set budget = every where name = 'settle_rooms'$$, '23514', null,
                 'a budget is shorter than the job''s period');
select throws_ok($$update app.scheduled_jobs set budget = interval '0' where name = 'settle_rooms'$$, '23514', null,
                 '... and longer than nothing');

select * from finish();
rollback;
