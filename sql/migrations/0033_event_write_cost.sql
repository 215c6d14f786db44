-- 0033 the cost of writing an event (2026-12-01).
--
-- A transaction that writes an event pays for the row, its index entries, its checks and its
-- triggers. Measured per inserted row (docs/performance.md, "Events"), the largest parts were
-- the type check (a table's CHECK constraints are read back from their stored form by every
-- statement that inserts: the 31-type list each time) and the push trigger, called for every
-- recipient's event although three types push. So:
--
-- * The type list becomes a domain, app.event_type: a domain's checks are prepared once per
--   connection (the type cache) instead of once per statement. The column changes to the
--   domain first without a check (same storage: no rewrite, no index rebuilt), then the
--   domain gets the check (which reads the table once), then the table's check goes.
--   A later event type: `alter domain app.event_type drop constraint event_type_check, add
--   constraint event_type_check check (value in (...))` (and events_check, for a broadcast).
-- * events_push fires for the types of app.push_types only, through its WHEN clause, which
--   app.bind_events_push writes from the table; a statement trigger on app.push_types writes
--   it again whenever the table changes, so a push type stays one row of data.

create domain app.event_type as text;
comment on domain app.event_type is
    'The type of an event (app.events.type): one of the types the clients know, docs/events.md. A domain so '
    'that the check is prepared once per connection rather than once per inserting statement (0033).';
alter table app.events alter column type type app.event_type;
alter domain app.event_type add constraint event_type_check check (value in (
    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
    'friend.removed', 'friend.updated', 'balance.changed',
    'catalog.changed', 'tips.changed', 'config.changed',
    'session.started', 'session.finished', 'session.abandoned',
    'selection.changed', 'item.acquired', 'profile.changed', 'settings.changed',
    'block.added', 'block.removed', 'report.created',
    'room.invited', 'room.joined', 'room.left', 'room.started', 'room.finished', 'room.gave_up', 'room.ended',
    'achievement.unlocked', 'streak.frozen',
    'gift.received', 'gift.accepted', 'gift.declined'));
alter table app.events drop constraint events_type_check;

select app.bind_events_push();
create trigger push_types_rebind
after insert or update or delete or truncate on app.push_types
for each statement execute function app.push_types_rebind();
