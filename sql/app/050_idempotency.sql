-- Retention of stored idempotent replies. Table in 0011_idempotency_batches_assets.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Deletes keys past the retention, at most `batch` of them (null: all); returns how many.
-- Run in batches by the prune job (api.job_step, with app.prune_events) or by a DBA. Keys past
-- the retention are also ignored (and taken over) by api.idempotent, so pruning is
-- housekeeping, not correctness.
create or replace function app.prune_idempotency_keys(batch integer)
returns integer
language sql
set search_path = public, pg_temp
as $$
    with gone as (
        delete from app.idempotency_keys k
        where k.ctid in (select o.ctid from app.idempotency_keys o
                         where o.created_at < now() - (select s.retention from app.idempotency_settings s)
                         limit batch)
        returning 1)
    select count(*)::integer from gone
$$;
comment on function app.prune_idempotency_keys(integer) is
    'Deletes at most `batch` Idempotency-Keys (null: all) past app.idempotency_settings.retention; returns how many.';

-- Every key past the retention at once, in one transaction (a DBA's; the prune job batches).
create or replace function app.prune_idempotency_keys()
returns integer
language sql
set search_path = public, pg_temp
as $$
    select app.prune_idempotency_keys(null)
$$;
comment on function app.prune_idempotency_keys() is
    'Deletes every Idempotency-Key past app.idempotency_settings.retention in one transaction '
    '(app.prune_idempotency_keys(null)); the prune job deletes them in batches instead.';
