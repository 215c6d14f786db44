-- migrate: no-transaction
-- The same index built concurrently, outside a transaction; and one on a table this file makes.
set lock_timeout = '2s';
create index concurrently focus_sessions_note_idx on app.focus_sessions (note);
create table app.notes (id bigint primary key, body text not null);
create index notes_body_idx on app.notes (body);
