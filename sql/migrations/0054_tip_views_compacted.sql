-- 0054 the tips shown compacted past a horizon (2026-12-06; docs/operations.md, "Growth: the
-- tables that are kept").
--
-- app.tip_views gets a row for every tip shown after a rating, forever. Its readers want little
-- of an old view: the rating's tip choice reads only the newest view per person and tip
-- (max(shown_at), sql/api/060_tips.sql), report.tips_shown_per_level and the export count them.
-- So a DBA compacts the views before a horizon (CALL app.compact_tip_views_all(before => ...),
-- sql/app/160_history_archive.sql) into one row per person and tip here: the newest of them
-- (its id, session and time, as it was) and how many they were. Each batch deletes views and
-- adds them here in one transaction, and every reader reads both, so the choice, the report and
-- the export's count are the same at every commit. A person's rows here are bounded by the
-- catalogue.
--
-- Only a new table: app.tip_views, which the compaction deletes from, needs no change (it was
-- never append-only). The foreign keys lock app.users and app.mindfulness_tips briefly.
set local lock_timeout = '2s';

create table app.tip_views_compacted (
    user_id     uuid not null references app.users on delete cascade,
    tip_id      uuid not null references app.mindfulness_tips,
    -- The newest compacted view as it was in app.tip_views: its id (the export's order), the
    -- session it followed and when. No foreign key on the session: a count must not go with a
    -- session (app.tip_views' own cascade would take one view; this row holds many).
    view_id     bigint not null,
    session_id  uuid not null,
    shown_at    timestamptz not null,
    views       integer not null check (views > 0),
    primary key (user_id, tip_id)
);
comment on table app.tip_views_compacted is
    'The tip views compacted past a horizon (app.compact_tip_views): per person and tip, the newest (view_id, session_id, '
    'shown_at as in app.tip_views) and how many views in all. The tip choice, report.tips_shown_per_level and the export '
    'read it beside app.tip_views.';
