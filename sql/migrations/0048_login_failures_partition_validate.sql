-- 0048 the check 0047 added NOT VALID, validated while the table serves (SHARE UPDATE
-- EXCLUSIVE: reads and writes go on during the scan), so 0049's ATTACH need not scan.
set local lock_timeout = '2s';
alter table app.login_failures validate constraint login_failures_before_cutover;
