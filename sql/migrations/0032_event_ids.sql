-- 0032 event ids in commit order without a commit lock (2026-12-01).
--
-- Until now each statement inserting events took one advisory lock held to its commit
-- (app.events_commit_order), so that ids, handed out at insert, became visible in id order:
-- every event-writing transaction committed after the one before it. Now an event's id is
-- made of its transaction's id (app.next_event_id in sql/app/020_events.sql) and readers stop
-- below the oldest transaction still running (app.events_horizon), so writers never wait for
-- one another. docs/performance.md, "Events", says why this design and what it measured.
--
-- Ids already given stay as they are: id_offset puts every new id above them, so the cursors
-- clients hold (Last-Event-ID, after=) go on working, and ids still increase in the order a
-- client receives them.

alter table app.events alter column id drop identity;  -- waits for the writers in flight, then holds them off

alter table app.event_settings add column id_offset bigint not null default 0;
comment on column app.event_settings.id_offset is
    'Added to every new event id (app.next_event_id) so that ids made from transaction ids lie above the ids '
    'given before 0032. Set by 0032; after a logical restore into another cluster (whose transaction ids start '
    'again) raise it the same way before writing events: docs/performance.md, "Events".';

-- Every transaction that may still write an event has an xid at least the oldest one running now.
update app.event_settings s
set id_offset = greatest(0, greatest(coalesce((select max(e.id) from app.events e), 0), s.pruned_through) + 1
                            - (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16));

alter table app.events alter column id set default app.next_event_id();

drop trigger events_commit_order on app.events;
drop function app.events_commit_order();

comment on table app.events is
    'What each user should hear about, one row per recipient (user_id null: everyone). Append-only; '
    'app.prune_events deletes what is older than app.event_settings.retention. Ids are made of the writing '
    'transaction''s id (app.next_event_id) and readers stop below app.events_horizon, so a reader''s cursor '
    'never skips a late commit.';

-- The doorbell: a NOTIFY makes every notifying transaction commit after the one before it (its
-- queue is written under one lock held to the commit), as the lock above did. Personal events
-- ring no more: each server's listener asks api.events_ring a few times a second, which also
-- tells it when an event held behind an older writer may be read. Broadcasts (rare: the catalog,
-- tips, release controls) still ring at once, for the servers' shared caches.
drop trigger events_notify on app.events;
create trigger events_notify
after insert on app.events
for each row when (new.user_id is null) execute function app.events_notify();
