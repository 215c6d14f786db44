-- The drill's table (scripts/chaos live-migration): :users accounts (numbered; emails
-- livefill<n>@example.com) made 200 days ago, each with :per_user finished offline sessions,
-- one every 12 hours going back from now (10-59 minutes each, ending 1-6 hours past the slot's
-- start), so a user's sessions never overlap (focus_sessions_no_overlap holds, and is checked:
-- constraints stay on) and they spread over the last months. Set-based, never through the API,
-- the way scripts/bench.d/scale.sql fills: run as the superuser with session_replication_role =
-- replica, so the per-row triggers (rollups, day totals, events, achievements) stay quiet for
-- the fill. What they would derive is left out on purpose: no request of the drill reads these
-- accounts' rollups or totals, and the sessions earn nothing (coins_earned 0), so the ledger
-- owes them no earn rows and report.ledger_reconciliation stays empty.
\set ON_ERROR_STOP 1
set session_replication_role = replica;
set synchronous_commit = off;
set maintenance_work_mem = '256MB';

create temp table fill as
select n, gen_random_uuid() as id from generate_series(1, :users::integer) n;

-- One bcrypt hash for everyone (cost 4): nobody signs in as these accounts.
insert into app.users (id, email, password_hash, display_name, created_at, updated_at)
select f.id, format('livefill%s@example.com', f.n), h.hash, format('Fill %s', f.n),
       now() - interval '200 days', now() - interval '200 days'
from fill f, (select crypt('correct horse', gen_salt('bf', 4)) as hash) h;

insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, coins_earned, created_at)
select gen_random_uuid(), s.user_id, 'offline', s.ended_at - make_interval(mins => s.minutes), s.ended_at,
       tstzrange(s.ended_at - make_interval(mins => s.minutes), s.ended_at), s.minutes, 0, s.ended_at
from (select f.id as user_id,
             now() - make_interval(hours => 12 * k + 1 + (f.n + k) % 5, mins => (f.n * 7 + k) % 60) as ended_at,
             10 + (f.n * 13 + k * 7) % 50 as minutes
      from fill f, generate_series(0, :per_user::integer - 1) k) s;

reset session_replication_role;
