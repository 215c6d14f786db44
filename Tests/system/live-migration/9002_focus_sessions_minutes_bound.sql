-- Drill fixture (scripts/chaos live-migration): a CHECK added to a busy table without a scan.
-- NOT VALID: new and changed rows are checked from the commit on, old ones by the VALIDATE of
-- the next migration. The ACCESS EXCLUSIVE lock is held only for the catalog change; waited
-- for at most lock_timeout, then the migrator tries again.
set local lock_timeout = '2s';
alter table app.focus_sessions add constraint focus_sessions_minutes_within_a_day
    check (minutes is null or minutes <= 1440) not valid;
