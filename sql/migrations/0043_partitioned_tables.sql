-- 0043 time partitions (2026-12-06): the register of the tables partitioned by time, and the job
-- that makes their partitions ahead (sql/app/160_partitions.sql; docs/operations.md, "Pruning").
-- The pruned append-only tables lost rows by batched DELETE (dead tuples, vacuum behind, locks
-- held per batch); partitioned by day, a whole day goes with one DROP. Our own job, not
-- pg_partman: the server already runs budgeted, failure-counted jobs (api.job_step), and the
-- drop must also keep pruned_through (events) and never take unsent mail, which an extension's
-- generic retention does not know.
set local lock_timeout = '2s';

create table app.partitioned_tables (
    parent   text primary key check (parent ~ '^app\.[a-z_]+$'),
    width    interval not null default interval '1 day' check (width >= interval '1 hour'),
    ahead    integer not null default 3 check (ahead between 1 and 60),
    cutover  timestamptz
);
comment on table app.partitioned_tables is
    'The tables partitioned by time: width of a partition, how many widths ahead the partitions job makes them, and '
    'cutover, the upper bound of the partition holding what the table had before (set by the migration that prepared it).';

insert into app.partitioned_tables (parent, width, ahead) values ('app.events', interval '1 day', 3);

-- lint: allow not-valid (app.scheduled_jobs holds one row a job, five rows)
alter table app.scheduled_jobs drop constraint scheduled_jobs_name_check,
    add constraint scheduled_jobs_name_check
    check (name in ('settle_rooms', 'prune', 'expire_gifts', 'shop_windows', 'partitions'));
insert into app.scheduled_jobs (name, every, budget) values ('partitions', interval '10 minutes', interval '10 seconds');
