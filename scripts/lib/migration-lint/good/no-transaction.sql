-- migrate: no-transaction
set lock_timeout = '2s';
drop index concurrently app.focus_sessions_note_idx;
reindex (concurrently) index app.focus_sessions_started_idx;
