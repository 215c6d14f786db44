-- 0046 time partitions for the sign-in failures, the mail and the Idempotency-Keys (2026-12-06;
-- docs/operations.md, "Pruning"): registered here, each converted by its own pair of migrations
-- after (0047-0049 app.login_failures, 0060-0061 app.outgoing_mail, 0062-0063
-- app.idempotency_keys). `keep_while` is a condition on a row of the table: a partition holding
-- a row that meets it is never dropped (the mail: queued or sending, so unsent mail is never
-- lost); null for a table whose rows all go once past the retention.
set local lock_timeout = '2s';

-- lint: allow not-valid (app.partitioned_tables holds one row a partitioned table, four rows)
alter table app.partitioned_tables add column keep_while text check (length(keep_while) <= 200);
comment on column app.partitioned_tables.keep_while is
    'A condition on a row (SQL, the table''s columns): a partition holding a row that meets it is not dropped, whatever '
    'its age. Null: every row goes with its partition once past the retention.';

-- One UTC day each, as the events: each retention (30 days, 30 days, 24 hours) is whole days, a
-- row is gone within a day after it, and a read that names no time (a key's lookup, the
-- mailer's claim, an erasure) probes one small index a day: some 35 for 30 days, 5 for a day.
insert into app.partitioned_tables (parent, width, ahead, keep_while) values
    ('app.login_failures', interval '1 day', 3, null),
    ('app.outgoing_mail', interval '1 day', 3, $$state in ('queued', 'sending')$$),
    ('app.idempotency_keys', interval '1 day', 3, null);
