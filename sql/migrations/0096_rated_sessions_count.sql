-- 0096 rated sessions counted (2026-12-07): binds app.focus_sessions_rated (sql/app/070_counters.sql)
-- to the updates that rate a finished session or take its rating back, deferred to commit as the
-- other count triggers of 0013, so app.client_day_totals.rated (0095) moves with each rating.
-- A migration of its own: app.focus_sessions is a busy table (0095 altered another one).
set local lock_timeout = '2s';

create constraint trigger focus_sessions_rated
after update of rating on app.focus_sessions
deferrable initially deferred
for each row when ((old.rating is null) <> (new.rating is null))
execute function app.focus_sessions_rated();
