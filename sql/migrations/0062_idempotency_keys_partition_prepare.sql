-- migrate: no-transaction
-- 0062 app.idempotency_keys, made ready to become the first partition of a partitioned
-- app.idempotency_keys (0063) without a scan under a strong lock (2026-12-06), as 0044 made the
-- events ready:
--   - the primary key (scope, key) cannot stay: a partitioned table's unique index must hold
--     its partition key (created_at), and (scope, key, created_at) would let a key repeat; from
--     0063 the trigger app.idempotency_keys_unique keeps (scope, key) unique
--     (docs/decisions.md, 2026-12-06). The lookups need an index on (scope, key): built here
--     CONCURRENTLY, the old table's part of the new table's index in 0063;
--   - the check `created_at < cutover` is added NOT VALID and validated here (SHARE UPDATE
--     EXCLUSIVE: reads and writes go on while it scans), so ATTACH need not scan. The cut-over
--     is the UTC midnight after tomorrow, kept in app.partitioned_tables; 0063 runs in the same
--     migrate (a migrate stopped between the two is run again within the day).
-- Each statement commits alone; a failed run is run again from the top.
set lock_timeout = '30s';
drop index concurrently if exists app.idempotency_keys_scope_key;
create index concurrently idempotency_keys_scope_key on app.idempotency_keys (scope, key);
set lock_timeout = '2s';
alter table app.idempotency_keys drop constraint if exists idempotency_keys_before_cutover;
update app.partitioned_tables set cutover = app.partition_slot(now(), interval '1 day') + interval '2 days'
where parent = 'app.idempotency_keys';
-- A check's bound must be a constant for ATTACH to use it, and the cut-over is known only now.
do $$
begin
    execute format('alter table app.idempotency_keys add constraint idempotency_keys_before_cutover check (created_at < %L) not valid',
                   (select t.cutover from app.partitioned_tables t where t.parent = 'app.idempotency_keys'));
end
$$;
alter table app.idempotency_keys validate constraint idempotency_keys_before_cutover;
