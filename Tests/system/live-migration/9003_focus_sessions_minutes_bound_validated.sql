-- Drill fixture (scripts/chaos live-migration): the old rows checked. VALIDATE CONSTRAINT scans
-- the table under SHARE UPDATE EXCLUSIVE: reads and writes go on meanwhile.
set local lock_timeout = '2s';
alter table app.focus_sessions validate constraint focus_sessions_minutes_within_a_day;
