-- 0047 app.login_failures, made ready to become the first partition of a partitioned
-- app.login_failures (0049) without a scan under a strong lock (2026-12-06), as 0044 made the
-- events ready: ATTACH scans the table unless a valid check proves its rows lie below the
-- partition's upper bound, so the check `failed_at < cutover` is added NOT VALID here (a brief
-- lock, no scan) and validated by 0048 (SHARE UPDATE EXCLUSIVE: reads and writes go on while it
-- scans). The cut-over is the UTC midnight after tomorrow, kept in app.partitioned_tables; 0049
-- runs in the same migrate (a migrate stopped before it is run again within the day). The
-- table has no key to remake: its indexes are all plain, and 0049 attaches them as they are.
set local lock_timeout = '2s';
update app.partitioned_tables set cutover = app.partition_slot(now(), interval '1 day') + interval '2 days'
where parent = 'app.login_failures';
-- A check's bound must be a constant for ATTACH to use it, and the cut-over is known only now.
do $$
begin
    execute format('alter table app.login_failures add constraint login_failures_before_cutover check (failed_at < %L) not valid',
                   (select t.cutover from app.partitioned_tables t where t.parent = 'app.login_failures'));
end
$$;
