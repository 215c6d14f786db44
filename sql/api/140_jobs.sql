-- api scheduled jobs: the timed work of app.scheduled_jobs (settle_rooms, expire_gifts,
-- shop_windows, partitions, reminders, prune, erase_idle_guests), run by every server's job runner (Sources/FocusIsland/Live/JobRunner.swift)
-- once a minute, each job on its own and under its own budget (docs/operations.md, "Scheduled
-- jobs", 2026-12-06). A run of one job:
--   1. api.job_claim(job), a transaction of its own: the job's next run moves `every` later, so
--      one server runs it however many ask, and a run that fails is tried again at its next run;
--   2. api.job_step(job), each step a transaction of its own with statement_timeout set to what
--      is left of the job's budget, while a step says there is more and a fifth of the budget is
--      left (the prune deletes in batches; the others are one step, or more when a step filled
--      its batch);
--   3. api.job_finished(job, ...), a transaction of its own: the result, or the error that
--      ended the run (a cancelled step rolled back its own transaction, so its failure can only
--      be written after it).
-- A slow or failing job never holds up another: its budget cancels it, the runner records it
-- and goes on to the next. api.jobs_run does all of it in one statement for a DBA or a test.

-- The jobs due now (next_run_at passed), the shortest budget first, each with its budget in
-- milliseconds. Reading claims nothing (api.job_claim does), so a job another server is
-- claiming may be listed and then not claimed.
create function api.jobs_due()
returns table (job text, budget_ms integer)
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return query
    select j.name, ceil(extract(epoch from j.budget) * 1000)::integer
    from app.scheduled_jobs j
    where j.next_run_at <= now()
    order by j.budget, j.name;
end
$$;
grant execute on function api.jobs_due() to focus_api;
comment on function api.jobs_due() is
    'Not an endpoint: the server''s job runner asks it once a minute; the due jobs of app.scheduled_jobs, shortest '
    'budget first, with budget_ms (the statement_timeout of their run).';

-- Claims the next run of `job` if it is due: its next_run_at moves `every` later at once, in the
-- caller's (autocommitted) statement, before any of the run's work. The row is taken with SKIP
-- LOCKED: a second claim racing it, or one meeting a DBA's api.jobs_run that holds the row,
-- answers null at once instead of waiting, so each run happens once across servers and no
-- runner waits for another; a run that then fails, is cancelled or loses its server is not
-- tried again before its next run. Returns the budget in milliseconds, null when the job is
-- not due or taken.
create function api.job_claim(job text)
returns integer
language sql volatile security definer set search_path = public, pg_temp
as $$
    update app.scheduled_jobs j
    set next_run_at = now() + j.every
    where j.name = (select d.name from app.scheduled_jobs d
                    where d.name = job_claim.job and d.next_run_at <= now()
                    for no key update skip locked)
    returning ceil(extract(epoch from j.budget) * 1000)::integer
$$;
grant execute on function api.job_claim(text) to focus_api;
comment on function api.job_claim(text) is
    'Not an endpoint: claims the due run of a scheduled job (its next_run_at moves `every` later); its budget in '
    'milliseconds, null when it is not due (another server claimed it).';

-- One step of a run of `job`, in the caller's transaction; `result` is what it did and `more`
-- whether another step would find work. settle_rooms (api.rooms_settle: members and rooms
-- settled), shop_windows (api.shop_windows_pass: 1 when the catalog's version moved) and
-- partitions (app.partitions_ensure_all: the time partitions made ahead) are one step; reminders
-- (app.reminders_pass: due rows of app.reminder_schedule decided) decides at most 1000 a step;
-- compact_product_rollups (app.compact_product_rollups: past days' shards of the by-client
-- rollups folded) folds 31 days a step; expire_gifts (api.gifts_expire: gifts expired) expires at most 1000 a step;
-- erase_idle_guests (api.erase_idle_guests: guests erased) erases at most 100 a step (each an erasure's work); prune
-- deletes at most 1000 rows of each table it prunes a step (Idempotency-Keys, sign-in records,
-- mail and requests: app.prune_idempotency_keys, app.prune_personal_data; then events:
-- app.prune_events) and drops at most one expired day partition of each partitioned table a
-- step (app.prune_partitioned; the events' in app.prune_events), so no step holds its locks
-- for long, and counts the events removed. A step that filled a batch (a day dropped counts its
-- rows), removed events or dropped an events partition says more. 22023 for a name that is no job.
create function api.job_step(job text)
returns table (result integer, more boolean)
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    c_batch constant integer := 1000;
    v_keys integer;
    v_personal integer;
    v_events integer;
    v_expired regclass;
    v_dropped boolean;
    v_gifts integer;
    v_days integer;
    v_guests integer;
begin
    case job
    when 'settle_rooms' then
        return query select api.rooms_settle(), false;
    when 'shop_windows' then
        return query select api.shop_windows_pass(), false;
    when 'expire_gifts' then
        v_gifts := api.gifts_expire();
        return query select v_gifts, v_gifts >= c_batch;
    when 'partitions' then
        return query select app.partitions_ensure_all(), false;
    when 'reminders' then
        return query select * from app.reminders_pass(c_batch);
    when 'compact_product_rollups' then
        -- 31 days a step (a step's rows: 31 x clients x 8); more while a step was full.
        v_days := app.compact_product_rollups(31);
        return query select v_days, v_days >= 31;
    when 'erase_idle_guests' then
        v_guests := api.erase_idle_guests(100);
        return query select v_guests, v_guests >= 100;
    when 'prune' then
        v_keys := app.prune_idempotency_keys(c_batch);
        v_personal := app.prune_personal_data(c_batch);
        -- Last: a partition it drops keeps its ACCESS EXCLUSIVE lock on app.events until this step
        -- commits (as the two before keep theirs on the keys, the failures and the mail: each
        -- waited 200 ms at most, app.partition_drop).
        v_expired := app.partition_expired('app.events', (select s.retention from app.event_settings s));
        v_events := app.prune_events(c_batch);
        v_dropped := v_expired is not null
                     and app.partition_expired('app.events', (select s.retention from app.event_settings s)) is distinct from v_expired;
        -- Seven tables share v_personal: a step that deleted a batch's worth of them looks again.
        return query select v_events, v_keys >= c_batch or v_personal >= c_batch or v_events > 0 or v_dropped;
    else
        raise exception 'no scheduled job %', job using errcode = 'invalid_parameter_value';
    end case;
end
$$;
grant execute on function api.job_step(text) to focus_api;
comment on function api.job_step(text) is
    'Not an endpoint: one step of a scheduled job''s run, in the caller''s transaction (the job runner''s, under '
    'the job''s budget): result (what it did), more (another step would find work). prune deletes at most 1000 '
    'rows of each table a step, expire_gifts expires at most 1000.';

-- Records how a run of `job` ended, in a transaction of its own after the run's steps. error
-- null: it succeeded; last_run_at, last_result (the steps' results added up), last_error
-- cleared, failures back to 0; `unfinished` (its budget ran low with work left) brings its next
-- run to a minute from now, so a prune that falls behind catches up a budget a minute. error
-- given (at most 1000 characters kept): it failed; last_run_at, last_result (what its committed
-- steps did), last_error, last_failed_at, and failures counts one more. Returns the job's
-- consecutive failures (0 after a success); null when no job has that name.
create function api.job_finished(job text, result integer, error text, unfinished boolean default false)
returns integer
language sql volatile security definer set search_path = public, pg_temp
as $$
    update app.scheduled_jobs j
    set last_run_at = now(),
        last_result = job_finished.result,
        last_error = left(job_finished.error, 1000),
        last_failed_at = case when job_finished.error is null then j.last_failed_at else now() end,
        failures = case when job_finished.error is null then 0 else j.failures + 1 end,
        next_run_at = case when job_finished.error is null and job_finished.unfinished
                           then least(j.next_run_at, now() + interval '1 minute') else j.next_run_at end
    where j.name = job_finished.job
    returning j.failures
$$;
grant execute on function api.job_finished(text, integer, text, boolean) to focus_api;
comment on function api.job_finished(text, integer, text, boolean) is
    'Not an endpoint: records how a scheduled job''s run ended (error null: succeeded; else last_error, '
    'last_failed_at, failures + 1); unfinished brings the next run to a minute from now. Its consecutive failures.';

-- Every due job, each run to the end (steps until none says more) in this one statement, with
-- no budget but the caller's statement_timeout: for a DBA (`select api.jobs_run();` after
-- `update app.scheduled_jobs set next_run_at = now() where name = '…'`) and the tests. Takes
-- each due row with SKIP LOCKED, so two callers at once run a job once. A job that raises is
-- recorded as failed (api.job_finished) and the others still run; a statement cancelled by its
-- timeout is not caught (PL/pgSQL cannot), so it ends every job of the call: the server runs
-- each job on its own instead. Returns how many jobs ran.
create function api.jobs_run()
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_job text;
    v_step record;
    v_total integer;
    v_count integer := 0;
begin
    for v_job in
        select j.name from app.scheduled_jobs j where j.next_run_at <= now() order by j.budget, j.name
        for update skip locked
    loop
        perform api.job_claim(v_job);
        v_total := 0;
        begin
            loop
                select * into v_step from api.job_step(v_job);
                v_total := v_total + coalesce(v_step.result, 0);
                exit when not v_step.more;
            end loop;
            perform api.job_finished(v_job, v_total, null);
        exception when others then
            perform api.job_finished(v_job, null, sqlerrm);
        end;
        v_count := v_count + 1;
    end loop;
    return v_count;
end
$$;
grant execute on function api.jobs_run() to focus_api;
comment on function api.jobs_run() is
    'Not an endpoint: for a DBA and the tests; runs every due job of app.scheduled_jobs to the end in one '
    'statement (settle_rooms, expire_gifts, shop_windows, partitions, reminders, prune), once each across callers. The server runs each '
    'job on its own instead (api.jobs_due, api.job_claim, api.job_step, api.job_finished).';
