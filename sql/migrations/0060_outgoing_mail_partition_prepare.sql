-- migrate: no-transaction
-- 0060 app.outgoing_mail, made ready to become the first partition of a partitioned
-- app.outgoing_mail (0061) without a scan under a strong lock (2026-12-06), as 0044 made the
-- events ready:
--   - the primary key of a partitioned table holds its partition key, so (id, created_at): its
--     index is built here CONCURRENTLY and becomes the old table's primary key in 0061 (ids stay
--     unique as they always were: one identity sequence makes them);
--   - the check `created_at < cutover` is added NOT VALID and validated here (SHARE UPDATE
--     EXCLUSIVE: reads and writes go on while it scans), so ATTACH need not scan. The cut-over
--     is the UTC midnight after tomorrow, kept in app.partitioned_tables; 0061 runs in the same
--     migrate (a migrate stopped between the two is run again within the day).
-- Each statement commits alone; a failed run is run again from the top.
set lock_timeout = '30s';
drop index concurrently if exists app.outgoing_mail_id_created_at;
create unique index concurrently outgoing_mail_id_created_at on app.outgoing_mail (id, created_at);
set lock_timeout = '2s';
alter table app.outgoing_mail drop constraint if exists outgoing_mail_before_cutover;
update app.partitioned_tables set cutover = app.partition_slot(now(), interval '1 day') + interval '2 days'
where parent = 'app.outgoing_mail';
-- A check's bound must be a constant for ATTACH to use it, and the cut-over is known only now.
do $$
begin
    execute format('alter table app.outgoing_mail add constraint outgoing_mail_before_cutover check (created_at < %L) not valid',
                   (select t.cutover from app.partitioned_tables t where t.parent = 'app.outgoing_mail'));
end
$$;
alter table app.outgoing_mail validate constraint outgoing_mail_before_cutover;
