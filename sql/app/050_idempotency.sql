-- Retention of stored idempotent replies. Table in 0011_idempotency_batches_assets.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Deletes keys past the retention; returns how many. Called hourly by the server (with
-- app.prune_events, through api.events_prune) or by a DBA. Keys past the retention are also
-- ignored (and taken over) by api.idempotent, so pruning is housekeeping, not correctness.
create or replace function app.prune_idempotency_keys()
returns integer
language sql
set search_path = public, pg_temp
as $$
    with gone as (
        delete from app.idempotency_keys k
        where k.created_at < now() - (select s.retention from app.idempotency_settings s)
        returning 1)
    select count(*)::integer from gone
$$;
