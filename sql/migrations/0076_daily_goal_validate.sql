-- 0076 (2026-12-06): validates the daily goal's check added NOT VALID by 0075 (SHARE UPDATE
-- EXCLUSIVE: reads and writes go on while it scans app.users).
set local lock_timeout = '2s';

alter table app.users validate constraint users_daily_goal_minutes_check;
