-- 0081 (2026-12-07): validates the checks 0080 added NOT VALID on app.users (SHARE UPDATE
-- EXCLUSIVE: reads and writes go on while it scans app.users).
set local lock_timeout = '2s';

alter table app.users validate constraint users_guest_or_account;
alter table app.users validate constraint users_birth_month_check;
