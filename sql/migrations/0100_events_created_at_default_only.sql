-- migrate: no-transaction
-- 0100 (2026-12-07): events keep an index on created_at in the default partition only.
--
-- Since 0045 app.events is partitioned by day and the prune drops a day's partition whole by
-- its bounds; the only reader of created_at by index left is app.prune_events' delete of old
-- rows from app.events_part_default (rows no day partition took: none while the partitions job
-- runs). The index across every day partition was one B-tree entry more for each event
-- written, read by nothing (docs/performance.md, "The write cost of an event"). Each statement
-- may run again from the top: the default partition's own index first (CONCURRENTLY: writes go
-- on), then the partitioned one dropped (ACCESS EXCLUSIVE on app.events for a catalog change,
-- no scan).
set lock_timeout = '2s';

create index concurrently if not exists events_part_default_created_at on app.events_part_default (created_at);
drop index if exists app.events_created_at;
