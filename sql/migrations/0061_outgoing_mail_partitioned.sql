-- 0061 app.outgoing_mail partitioned by UTC day of created_at (2026-12-06; docs/operations.md,
-- "Pruning"): the prune drops a day whole once it is past the retention and holds no queued or
-- sending mail (app.partitioned_tables.keep_while, app.prune_partitioned), instead of deleting
-- its rows in batches. As 0045 did for the events, in one transaction under one ACCESS EXCLUSIVE
-- lock on the old table, taken first: the old table is renamed app.outgoing_mail_part_before, a
-- partitioned app.outgoing_mail takes its name with the same columns, defaults, checks, indexes
-- and trigger, and the old table becomes its partition for everything below the cut-over. The
-- primary key becomes (id, created_at), its index built by 0060, whose validated check spares
-- ATTACH its scan; the other indexes match the new ones and are attached, not built. The ids go
-- on from where the old identity was: the new table's identity sequence starts there, and the
-- old table's column, now a partition's, loses its own (inserts name the parent).
set local lock_timeout = '2s';
lock table app.outgoing_mail in access exclusive mode;

alter table app.outgoing_mail rename to outgoing_mail_part_before;
alter index app.outgoing_mail_due rename to outgoing_mail_part_before_due;
alter index app.outgoing_mail_recipient rename to outgoing_mail_part_before_recipient;
alter index app.outgoing_mail_time rename to outgoing_mail_part_before_time;
alter index app.outgoing_mail_user rename to outgoing_mail_part_before_user;
alter table app.outgoing_mail_part_before drop constraint outgoing_mail_pkey,
    add constraint outgoing_mail_part_before_pkey primary key using index outgoing_mail_id_created_at;
-- The row trigger comes from the parent at ATTACH.
drop trigger outgoing_mail_link on app.outgoing_mail_part_before;
-- The identity's next value, kept for the new table's sequence (dropping the identity drops its
-- sequence, whose name the new table's takes).
create temporary table outgoing_mail_next_id on commit drop as
select s.last_value, s.is_called from app.outgoing_mail_id_seq s;
alter table app.outgoing_mail_part_before alter column id drop identity;

create table app.outgoing_mail (
    id              bigint generated always as identity,
    recipient       citext not null,
    subject         text not null,
    body            text not null,
    created_at      timestamptz not null default now(),
    sent_at         timestamptz,
    user_id         uuid,
    kind            text not null default 'message',
    params          jsonb not null default '{}'::jsonb,
    state           text not null default 'queued',
    attempts        integer not null default 0,
    next_attempt_at timestamptz not null default now(),
    claimed_at      timestamptz,
    failed_at       timestamptz,
    last_error      text,
    constraint outgoing_mail_attempts_check check (attempts >= 0),
    constraint outgoing_mail_claimed_check check (state <> 'sending' or claimed_at is not null),
    constraint outgoing_mail_failed_check check ((state = 'failed') = (failed_at is not null)),
    constraint outgoing_mail_kind_check
        check (kind in ('message', 'password_reset', 'email_verification', 'address_taken', 'signup_code')),
    constraint outgoing_mail_last_error_check check (length(last_error) <= 1000),
    constraint outgoing_mail_params_check check (jsonb_typeof(params) = 'object' and length(params::text) <= 1000),
    constraint outgoing_mail_sent_check check ((state = 'sent') = (sent_at is not null)),
    constraint outgoing_mail_state_check check (state in ('queued', 'sending', 'sent', 'failed')),
    constraint outgoing_mail_pkey primary key (id, created_at)
) partition by range (created_at);
select setval('app.outgoing_mail_id_seq', n.last_value, n.is_called) from outgoing_mail_next_id n;
comment on table app.outgoing_mail is
    'The mail queue: focus-island mail claims, sends and marks each (docs/mail.md). Partitioned by UTC day of '
    'created_at (app.partitioned_tables); app.prune_personal_data drops a day once it is past '
    'app.retention_settings.outgoing_mail and holds no queued or sending mail. Ids are unique by their making (one '
    'identity sequence); the key adds created_at for the partitions.';
comment on column app.outgoing_mail.user_id is
    'The account the mail was written for (the recipient''s account then; null: none); erased with it.';
comment on column app.outgoing_mail.kind is
    'The template that renders it (mail/<kind>.txt and mail/<kind>.html); ''message'': its subject and body as written.';
comment on column app.outgoing_mail.params is
    'The values the template fills in (a code, its minutes); blanked once sent or failed.';
comment on column app.outgoing_mail.state is
    'queued (waiting until next_attempt_at), sending (claimed at claimed_at), sent (at sent_at) or failed (at failed_at, not retried).';
comment on column app.outgoing_mail.last_error is
    'The last failed try''s answer (SMTP code and text, or the transport''s error); may name the recipient, erased with the row.';
create index outgoing_mail_due on app.outgoing_mail (id) where state in ('queued', 'sending');
create index outgoing_mail_recipient on app.outgoing_mail (recipient);
create index outgoing_mail_time on app.outgoing_mail (created_at);
create index outgoing_mail_user on app.outgoing_mail (user_id) where user_id is not null;
create trigger outgoing_mail_link before insert on app.outgoing_mail
    for each row execute function app.link_to_email_holder('recipient');

-- The default partition holds a row no day partition covers yet: an insert never fails.
create table app.outgoing_mail_part_default partition of app.outgoing_mail default;
alter table app.outgoing_mail attach partition app.outgoing_mail_part_before
    for values from (minvalue) to (app.partition_cutover('app.outgoing_mail', 'app.outgoing_mail_part_before', 'created_at'));
-- The days from the cut-over (or today) to three days ahead; the partitions job keeps them ahead.
select app.partitions_ensure('app.outgoing_mail');
