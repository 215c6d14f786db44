-- migrate: no-transaction
-- 0044 app.events, made ready to become the first partition of a partitioned app.events (0045)
-- without a scan under a strong lock (2026-12-06):
--   - the primary key of a partitioned table holds its partition key, so (id, created_at): its
--     index is built here CONCURRENTLY and becomes the old table's primary key in 0045 (ids stay
--     unique as they always were: app.next_event_id makes each from the writing transaction's id);
--   - ATTACH scans the table unless a valid check proves its rows lie below the partition's
--     upper bound: the check `created_at < cutover` is added NOT VALID and validated here
--     (SHARE UPDATE EXCLUSIVE: reads and writes go on while it scans). The cut-over is the UTC
--     midnight after tomorrow, kept in app.partitioned_tables: rows until then still come here,
--     and 0045 must run before it (it runs in the same migrate; a migrate stopped between the
--     two is run again within the day, docs/operations.md "Pruning"). An empty table (a new
--     database) is attached below -infinity instead: it holds nothing, and every row goes to
--     the day partitions.
-- Each statement commits alone; a failed run is run again from the top.
set lock_timeout = '30s';
drop index concurrently if exists app.events_id_created_at;
create unique index concurrently events_id_created_at on app.events (id, created_at);
set lock_timeout = '2s';
alter table app.events drop constraint if exists events_before_cutover;
update app.partitioned_tables set cutover = app.partition_slot(now(), interval '1 day') + interval '2 days'
where parent = 'app.events';
-- A check's bound must be a constant for ATTACH to use it, and the cut-over is known only now.
do $$
begin
    execute format('alter table app.events add constraint events_before_cutover check (created_at < %L) not valid',
                   (select t.cutover from app.partitioned_tables t where t.parent = 'app.events'));
end
$$;
alter table app.events validate constraint events_before_cutover;
