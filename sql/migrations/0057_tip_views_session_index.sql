-- migrate: no-transaction
-- 0057 the tip views found by their session (2026-12-06): tip_views.session_id cascades from
-- app.focus_sessions, so each session the archive moves (0055) looks for its views; and a
-- retried rating reads its session's view (api.focus_sessions_rate). With no index on the
-- column, each read the whole table.
set lock_timeout = '30s';
drop index concurrently if exists app.tip_views_session;
create index concurrently tip_views_session on app.tip_views (session_id);
