-- migrate: no-transaction
-- 0075 daily goal (2026-12-06; its check validated in this file since 2026-12-07).
--
-- A daily focus goal: the minutes a person aims to focus each day of their time zone, set with
-- PATCH /me and shown on the Profile; GET /me/stats shows today's minutes against it. Null: no
-- goal. A whole number from 1 to 1440 (a day). Not shown to anyone else. Erasure resets it with
-- every column of app.users but the tombstone's own (api.erase_account), so nothing here.
-- Existing accounts have none: no backfill.
-- Outside a transaction each statement commits alone, so the column and its check NOT VALID
-- hold app.users' lock for an instant, and the validation (SHARE UPDATE EXCLUSIVE: reads and
-- writes go on) scans after that lock is gone. Each statement may run again from the top.
set lock_timeout = '2s';

alter table app.users add column if not exists daily_goal_minutes integer;
alter table app.users drop constraint if exists users_daily_goal_minutes_check,
    add constraint users_daily_goal_minutes_check check (daily_goal_minutes between 1 and 1440) not valid;
alter table app.users validate constraint users_daily_goal_minutes_check;
comment on column app.users.daily_goal_minutes is
    'The minutes a day the person aims to focus (PATCH /me), shown to them only; null: no goal.';
