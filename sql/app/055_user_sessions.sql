-- A person's focus sessions, live and moved past the horizon (2026-12-06; 0055).

-- Every session of `user_id`: those in app.focus_sessions and those app.archive_focus_sessions
-- moved to app.focus_sessions_archived, each once (a move deletes and inserts in one
-- transaction). A plain SQL function with no SET clause, so the planner inlines it: a
-- caller's conditions and ORDER BY ... LIMIT reach both tables' (user_id, ...) indexes.
-- Every reader of a person's past sessions reads this, not the live table.
create or replace function app.user_sessions(user_id uuid)
returns setof app.focus_sessions
language sql stable
as $$
    select s.* from app.focus_sessions s where s.user_id = user_sessions.user_id
    union all
    select a.* from app.focus_sessions_archived a where a.user_id = user_sessions.user_id
$$;
comment on function app.user_sessions(uuid) is
    'A person''s focus sessions, live and archived past the horizon (app.focus_sessions_archived), as app.focus_sessions rows.';
