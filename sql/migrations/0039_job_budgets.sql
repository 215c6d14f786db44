-- Each scheduled job runs in transactions of its own under a time budget of its own, and its
-- failures are kept on its row (docs/operations.md, "Scheduled jobs", 2026-12-06).
--
-- budget: how long one run may take, all its steps together; the server's job runner sets
-- each step's statement_timeout to what is left of it, so a run past its budget is cancelled
-- and recorded as failed, and never holds up another job. Below `every`, so a run ends before
-- the job is due again. last_failed_at and failures (consecutive: a run that succeeds sets it
-- back to 0) say how long a job has been failing; last_error says why.
alter table app.scheduled_jobs
    add column budget interval not null default interval '10 seconds'
        check (budget >= interval '1 millisecond' and budget <= interval '5 minutes'),
    add column last_failed_at timestamptz,
    add column failures integer not null default 0 check (failures >= 0),
    add constraint scheduled_jobs_budget_below_every check (budget < every),
    add constraint scheduled_jobs_failure_when check ((failures = 0) or last_failed_at is not null);

-- The prune deletes in batches (api.job_step) and may take longer than one step; the others
-- are one statement each.
update app.scheduled_jobs set budget = interval '30 seconds' where name = 'prune';

comment on table app.scheduled_jobs is
    'Jobs the server''s job runner starts when due (api.jobs_due, api.job_claim, api.job_step, api.job_finished; '
    'api.jobs_run for a DBA): settle_rooms (api.rooms_settle: vanished members, unstarted rooms), prune '
    '(events, Idempotency-Keys, sign-in records and mail past their retention, in batches), expire_gifts '
    '(api.gifts_expire: pending gifts past their expiry, refunded) and shop_windows '
    '(api.shop_windows_pass: a new catalog version once a seasonal window or a sale started or ended). '
    'budget: the most one run may take (its steps'' statement_timeout); failures: consecutive failed runs.';
comment on column app.scheduled_jobs.budget is
    'The most one run may take, all its steps together; past it the step running is cancelled and the run recorded as failed.';
comment on column app.scheduled_jobs.failures is
    'Consecutive failed runs (0 after a run that succeeded); last_failed_at the latest, last_error why.';
