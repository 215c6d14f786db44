-- An index on a table the previous release fills, built in the migrator's transaction: every
-- write to app.focus_sessions waits until it is built.
set local lock_timeout = '2s';
create index focus_sessions_note_idx on app.focus_sessions (note);
