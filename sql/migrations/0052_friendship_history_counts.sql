-- 0052 the friendship history archived past a horizon into counts (2026-12-06; docs/operations.md,
-- "Growth: the tables that are kept").
--
-- app.friendship_events gets a row for every ask, answer and removal, forever. Its only reader
-- is report.friendship_funnel_per_day, which counts them per UTC day and action; no rule and no
-- export reads a past event (a pair's state is app.friendships). So a DBA archives the events
-- before a horizon into these counts (CALL app.archive_friendship_events_all(before => ...),
-- sql/app/160_history_archive.sql), each batch deleting events and adding them here in one
-- transaction, and the funnel reads both. The ids of the pair go with the rows they were in.
-- Only a new table here; app.friendship_events gets its delete switch in 0053.
set local lock_timeout = '2s';

create table app.friendship_event_day_totals (
    day     date not null,
    action  text not null check (action in ('asked', 'accepted', 'declined', 'cancelled', 'removed')),
    events  bigint not null check (events > 0),
    primary key (day, action)
);
comment on table app.friendship_event_day_totals is
    'The friendship events archived (app.archive_friendship_events), counted per UTC day of created_at and action. '
    'report.friendship_funnel_per_day adds them to the live events.';
