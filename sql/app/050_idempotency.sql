-- One stored reply per Idempotency-Key, and their retention. Table in
-- 0011_idempotency_batches_assets.sql, partitioned by UTC day since 0063.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Waits until no other transaction works with the Idempotency-Key (scope, key), and holds it
-- until this one ends: a transaction-scoped advisory lock on the pair's hash (a collision only
-- makes two keys wait for each other). Taken by api.idempotent before it reads the key, and by
-- the trigger app.idempotency_keys_unique before any insert, so the reader that gets it sees
-- every earlier writer of the key committed or rolled back.
create or replace function app.idempotency_key_lock(scope text, key text)
returns void
language sql volatile
set search_path = public, pg_temp
as $$
    select pg_advisory_xact_lock(hashtext('idempotency:' || idempotency_key_lock.scope || ' ' || idempotency_key_lock.key))
$$;
comment on function app.idempotency_key_lock(text, text) is
    'Holds the Idempotency-Key (scope, key) until this transaction ends (an advisory lock on its hash); another '
    'transaction taking it waits.';

-- (scope, key) unique across the partitions of app.idempotency_keys (decisions.md, 2026-12-06):
-- a partitioned table's unique index must hold the partition key (created_at), so the trigger
-- does what the primary key (scope, key) did before 0063. It takes the key's lock
-- (app.idempotency_key_lock), so a second writer of the key waits for the first to commit or
-- roll back, then reads with a snapshot taken after, and an existing row is 23505
-- unique_violation, as the index answered. A key past its retention is taken over by deleting
-- its row first (api.idempotent), so at most one row a key exists. Bound before insert only:
-- nothing updates a key's scope or key.
create or replace function app.idempotency_keys_unique()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.idempotency_key_lock(new.scope, new.key);
    if exists (select from app.idempotency_keys k where k.scope = new.scope and k.key = new.key) then
        raise exception 'duplicate Idempotency-Key in app.idempotency_keys'  -- the scope names a person: not in the log
            using errcode = 'unique_violation', table = 'idempotency_keys', schema = 'app';
    end if;
    return new;
end
$$;

-- Removes keys past the retention and returns how many: app.idempotency_keys is partitioned by
-- UTC day (0063), so an expired day is dropped whole (at most one a call) and at most `batch`
-- (null: all) are deleted from the default partition and the one of before the partitioning
-- (app.prune_partitioned). Run by the prune job (api.job_step, before app.prune_events) or by a
-- DBA. Keys past the retention are also ignored (and taken over) by api.idempotent, so pruning
-- is housekeeping, not correctness.
create or replace function app.prune_idempotency_keys(batch integer)
returns integer
language sql
set search_path = public, pg_temp
as $$
    select app.prune_partitioned('app.idempotency_keys', batch)
$$;
comment on function app.prune_idempotency_keys(integer) is
    'Removes Idempotency-Keys past app.idempotency_settings.retention: an expired day partition dropped whole, at most '
    '`batch` (null: all) deleted from the default partition and _part_before; returns how many.';

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
