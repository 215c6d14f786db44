-- migrate: no-transaction
-- Drill fixture (scripts/chaos live-migration), never in sql/migrations: an index on a busy
-- table with a million rows, built the live way. Outside a transaction (CONCURRENTLY needs
-- it); run again from the top after a failure, so a build that failed midway (an INVALID
-- index) is dropped first.
drop index concurrently if exists app.focus_sessions_created;
create index concurrently focus_sessions_created on app.focus_sessions (created_at);
