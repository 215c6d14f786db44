-- 0049 app.login_failures partitioned by UTC day of failed_at (2026-12-06; docs/operations.md,
-- "Pruning"): the prune drops a day whole (app.prune_partitioned) instead of deleting its rows
-- in batches. As 0045 did for the events, in one transaction under one ACCESS EXCLUSIVE lock on
-- the old table, taken first: the old table is renamed app.login_failures_part_before, a
-- partitioned app.login_failures takes its name with the same columns, defaults, checks,
-- indexes and trigger, and the old table becomes its partition for everything below the
-- cut-over (0047's validated check spares the scan; its indexes match the new ones and are
-- attached, not built; an empty old table, a new database, is attached below -infinity).
set local lock_timeout = '2s';
lock table app.login_failures in access exclusive mode;

alter table app.login_failures rename to login_failures_part_before;
alter index app.login_failures_address_time rename to login_failures_part_before_address_time;
alter index app.login_failures_email_address_time rename to login_failures_part_before_email_address_time;
alter index app.login_failures_email_time rename to login_failures_part_before_email_time;
alter index app.login_failures_time rename to login_failures_part_before_time;
alter index app.login_failures_user rename to login_failures_part_before_user;
-- The row trigger comes from the parent at ATTACH.
drop trigger login_failures_link on app.login_failures_part_before;

create table app.login_failures (
    email     citext not null,
    failed_at timestamptz not null default now(),
    client_ip inet,
    kind      text not null default 'login',
    user_id   uuid,
    constraint login_failures_kind_check check (kind in ('login', 'code', 'password'))
) partition by range (failed_at);
comment on table app.login_failures is
    'Failed sign-ins, codes and password checks, read by the throttles (app.auth_settings windows). Partitioned by UTC '
    'day of failed_at (app.partitioned_tables); app.prune_personal_data drops a day once it is past '
    'app.retention_settings.login_failures.';
comment on column app.login_failures.user_id is
    'The account that held the email when the failure was recorded (null: none); erased with it.';
create index login_failures_address_time on app.login_failures (client_ip, failed_at) where kind = 'code';
create index login_failures_email_address_time on app.login_failures (email, client_ip, failed_at);
create index login_failures_email_time on app.login_failures (email, failed_at);
create index login_failures_time on app.login_failures (failed_at);
create index login_failures_user on app.login_failures (user_id) where user_id is not null;
create trigger login_failures_link before insert on app.login_failures
    for each row execute function app.link_to_email_holder('email');

-- The default partition holds a row no day partition covers yet: an insert never fails.
create table app.login_failures_part_default partition of app.login_failures default;
alter table app.login_failures attach partition app.login_failures_part_before
    for values from (minvalue) to (app.partition_cutover('app.login_failures', 'app.login_failures_part_before', 'failed_at'));
-- The days from the cut-over (or today) to three days ahead; the partitions job keeps them ahead.
select app.partitions_ensure('app.login_failures');
