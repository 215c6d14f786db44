-- CONCURRENTLY without the marker on the first line: PostgreSQL refuses it in a transaction.
set local lock_timeout = '2s';
create index concurrently focus_sessions_note_idx on app.focus_sessions (note);
