-- 0045 app.events partitioned by day of created_at (2026-12-06; docs/operations.md, "Pruning"):
-- the prune drops a day whole (app.prune_events) instead of deleting its rows in batches.
-- One transaction, under one ACCESS EXCLUSIVE lock on the old table, taken first: the old table
-- is renamed app.events_part_before, a partitioned app.events takes its name with the same
-- columns, defaults, checks, indexes and triggers, and the old table becomes its partition for
-- everything below the cut-over. Nothing is scanned or built under the lock: the primary key's
-- index (id, created_at) was built concurrently and the check proving the bound validated in
-- 0044, the other indexes match the old table's and are attached, not built; an empty old table
-- (a new database) is attached below -infinity, with nothing to scan. Readers and writers name
-- app.events and find the new table when the lock is released: plpgsql resolves names at
-- each call, report views follow the rename and are made again at the end of this migrate.
-- Measured: the transaction holds its lock about a millisecond past its statements
-- (docs/performance.md, "Pruning by partition").
set local lock_timeout = '2s';
lock table app.events in access exclusive mode;

alter table app.events rename to events_part_before;
alter index app.events_user_id rename to events_part_before_user_id;
alter index app.events_broadcast rename to events_part_before_broadcast;
alter index app.events_created_at rename to events_part_before_created_at;
-- The primary key of a partition holds the partition key: (id, created_at), the index of 0044.
alter table app.events_part_before drop constraint events_pkey,
    add constraint events_part_before_pkey primary key using index events_id_created_at;
-- Row triggers come from the parent at ATTACH (the statement trigger stays: it guards the old
-- partition against a delete naming it).
drop trigger events_notify on app.events_part_before;
drop trigger events_push on app.events_part_before;

create table app.events (
    id           bigint not null default app.next_event_id(),
    user_id      uuid,
    type         app.event_type not null,
    payload      jsonb not null default '{}'::jsonb,
    created_at   timestamptz not null default now(),
    origin_token uuid,
    constraint events_check check ((user_id is null) = (type in ('catalog.changed', 'tips.changed', 'config.changed'))),
    constraint events_payload_check check (jsonb_typeof(payload) = 'object' and length(payload::text) <= 1000),
    constraint events_pkey primary key (id, created_at)
) partition by range (created_at);
comment on table app.events is
    'What each user should hear about, one row per recipient (user_id null: everyone). Append-only; partitioned by '
    'UTC day of created_at (app.partitioned_tables), and app.prune_events drops a day once it is older than '
    'app.event_settings.retention. Ids become visible in id order (see app.events_horizon), so a reader''s cursor never '
    'skips a late commit; ids are unique by their making (app.next_event_id), the key adds created_at for the partitions.';
comment on column app.events.origin_token is
    'The auth token whose request wrote it (own-device events only): that token''s own streams and '
    'long-polls do not get it. Pruned with the event.';
create index events_user_id on app.events (user_id, id) where user_id is not null;
create index events_broadcast on app.events (id) where user_id is null;
create index events_created_at on app.events (created_at);
create trigger events_append_only before update or delete or truncate on app.events
    for each statement execute function app.events_append_only();
create trigger events_notify after insert on app.events
    for each row when (new.user_id is null) execute function app.events_notify();
select app.bind_events_push();

-- The default partition holds a row no day partition covers yet: an insert never fails.
create table app.events_part_default partition of app.events default;
alter table app.events attach partition app.events_part_before
    for values from (minvalue) to (app.partition_cutover('app.events', 'app.events_part_before', 'created_at'));
-- The days from the cut-over (or today) to three days ahead; the partitions job keeps them ahead.
select app.partitions_ensure('app.events');
