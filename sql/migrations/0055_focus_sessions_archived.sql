-- 0055 the focus sessions moved past a horizon (2026-12-06; docs/operations.md, "Growth: the
-- tables that are kept").
--
-- app.focus_sessions gets a row for every session, forever, and carries what only recent
-- sessions need: the overlap exclusion (a GiST index), the end-time index the counters and the
-- offline cap read, and eight row triggers. Leaderboards and streak counts read the rollups,
-- but the person's pages, stats, streaks, achievements and export read the rows. So a DBA moves
-- the finished sessions before a horizon here, unchanged (CALL app.archive_focus_sessions_all(
-- before => ...), sql/app/160_history_archive.sql), each batch deleting them from the live table
-- and inserting them here in one transaction, and every reader reads both
-- (app.user_sessions). The same columns, in the same order (LIKE), so a row moves whole and a
-- column added to the live table and not here fails the move loudly rather than dropping it.
-- A plain table: its indexes are the two the readers use, and no partition needs making.
--
-- Only a new table here; app.focus_sessions itself is unchanged (its delete triggers are
-- skipped by the move as by the bulk import, focus.bulk_import). The foreign key locks
-- app.users briefly; LIKE reads app.focus_sessions' definition under ACCESS SHARE.
set local lock_timeout = '2s';

create table app.focus_sessions_archived (
    like app.focus_sessions including defaults including constraints,
    primary key (id),
    foreign key (user_id) references app.users on delete cascade,
    -- Only finished sessions move; a running one stays live.
    constraint focus_sessions_archived_finished check (ended_at is not null)
);
-- A person's pages, newest first (as focus_sessions_user_start), and every per-person reader.
create index focus_sessions_archived_user_start on app.focus_sessions_archived (user_id, started_at desc, id desc);
-- The counters' recount reads a range of end times.
create index focus_sessions_archived_end on app.focus_sessions_archived (ended_at);
comment on table app.focus_sessions_archived is
    'The finished focus sessions moved past a horizon (app.archive_focus_sessions), row for row as they were in '
    'app.focus_sessions; an id is in one of the two. Read with the live ones through app.user_sessions.';
