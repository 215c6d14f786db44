-- 0075 daily goal (2026-12-06).
--
-- A daily focus goal: the minutes a person aims to focus each day of their time zone, set with
-- PATCH /me and shown on the Profile; GET /me/stats shows today's minutes against it. Null: no
-- goal. A whole number from 1 to 1440 (a day). Not shown to anyone else. Erasure resets it with
-- every column of app.users but the tombstone's own (api.erase_account), so nothing here.
-- Existing accounts have none: no backfill. The check is added NOT VALID here and validated by
-- 0076, so no step holds a lock that blocks writers while app.users is read whole.
set local lock_timeout = '2s';

alter table app.users add column daily_goal_minutes integer;
alter table app.users add constraint users_daily_goal_minutes_check
    check (daily_goal_minutes between 1 and 1440) not valid;
comment on column app.users.daily_goal_minutes is
    'The minutes a day the person aims to focus (PATCH /me), shown to them only; null: no goal.';
