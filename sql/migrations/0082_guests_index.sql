-- migrate: no-transaction
-- 0082 (2026-12-07): the live guests, for erase_idle_guests (a few among many accounts).
set lock_timeout = '2s';
drop index concurrently if exists app.users_guests;
create index concurrently users_guests on app.users (created_at) where email is null and deleted_at is null;
