-- 0008 account lifecycle: deleted accounts as anonymous tombstones, the user's time zone,
-- devices (token ids, last use, sliding expiry), password resets through a mail outbox,
-- blocks, reports for moderators, and a per-sender rate for friend requests by email.

-- A deleted account stays as a row with no email, no password and the name 'Deleted user', so
-- the append-only ledger, sessions and report views keep adding up without naming anyone
-- (a user row cannot be deleted anyway: the cascade into coin_ledger hits its trigger).
-- The email is free to register again.
alter table app.users alter column email drop not null;
alter table app.users alter column password_hash drop not null;
alter table app.users add column deleted_at timestamptz;
alter table app.users add constraint users_deleted_are_anonymous check (
    case when deleted_at is null then email is not null and password_hash is not null
         else email is null and password_hash is null and display_name = 'Deleted user' end);

-- The user's own days (today, the week, streaks, the offline coin cap) are counted in this
-- IANA zone; the api checks the name against pg_timezone_names.
alter table app.users add column time_zone text not null default 'UTC'
    check (length(time_zone) between 1 and 64);

-- Tokens get a public id (the digest never leaves the database), the time of last use, the
-- client's User-Agent as a label, and a sliding expiry: expires_at moves to last use +
-- token_ttl, written at most once per token_touch_interval.
alter table app.auth_tokens add column id uuid not null default gen_random_uuid();
alter table app.auth_tokens add constraint auth_tokens_id_key unique (id);
alter table app.auth_tokens add column last_used_at timestamptz;
update app.auth_tokens set last_used_at = created_at;
alter table app.auth_tokens alter column last_used_at set not null;
alter table app.auth_tokens alter column last_used_at set default now();
alter table app.auth_tokens add column user_agent text check (length(user_agent) <= 200);

alter table app.auth_settings
    add column token_touch_interval interval not null default interval '1 hour'
        check (token_touch_interval between interval '0' and interval '1 day'),
    add column reset_code_ttl interval not null default interval '15 minutes'
        check (reset_code_ttl between interval '1 minute' and interval '1 day'),
    add column max_reset_mails integer not null default 3 check (max_reset_mails > 0),
    add column reset_mail_window interval not null default interval '1 hour'
        check (reset_mail_window > interval '0');
comment on column app.auth_settings.token_touch_interval is
    'A token''s last_used_at (and its sliding expiry) is written at most this often, so reads stay reads.';
comment on column app.auth_settings.max_reset_mails is
    'At most this many reset codes are mailed to one account per reset_mail_window; more requests are answered alike and send nothing.';

-- One-time password reset codes: only their SHA-256 digest, single use, short-lived.
create table app.password_resets (
    id          uuid primary key default gen_random_uuid(),
    user_id     uuid not null references app.users on delete cascade,
    digest      bytea not null check (length(digest) = 32),
    created_at  timestamptz not null default now(),
    expires_at  timestamptz not null,
    used_at     timestamptz,
    check (expires_at > created_at)
);
create index password_resets_user on app.password_resets (user_id, created_at);

-- Mail the server wants sent. An operator's mailer takes unsent rows with
-- app.take_outgoing_mail(), which marks them sent and blanks their body (a reset code stays in
-- clear text only until it is handed over).
create table app.outgoing_mail (
    id          bigint generated always as identity primary key,
    recipient   citext not null,
    subject     text not null,
    body        text not null,
    created_at  timestamptz not null default now(),
    sent_at     timestamptz
);
create index outgoing_mail_unsent on app.outgoing_mail (id) where sent_at is null;
create index outgoing_mail_recipient on app.outgoing_mail (recipient);

create function app.take_outgoing_mail(batch integer default 50)
returns table (id bigint, recipient citext, subject text, body text, created_at timestamptz)
language sql
set search_path = public, pg_temp
as $$
    with taken as (
        select m.id, m.recipient, m.subject, m.body, m.created_at
        from app.outgoing_mail m
        where m.sent_at is null
        order by m.id
        limit take_outgoing_mail.batch
        for update skip locked
    ), marked as (
        update app.outgoing_mail m set sent_at = now(), body = '(sent)'
        from taken t where m.id = t.id
    )
    select t.id, t.recipient, t.subject, t.body, t.created_at from taken t order by t.id
$$;
comment on function app.take_outgoing_mail(integer) is
    'Mailer tool (focus_owner): up to `batch` unsent mails, oldest first, marked sent with their body '
    'blanked in the same transaction; concurrent mailers skip each other''s rows.';

-- Who blocked whom. A block ends any friendship or request between the two.
create table app.blocks (
    blocker     uuid not null references app.users on delete cascade,
    blocked     uuid not null references app.users on delete cascade,
    created_at  timestamptz not null default now(),
    primary key (blocker, blocked),
    check (blocker <> blocked)
);
create index blocks_blocked on app.blocks (blocked);

-- Reports for moderators (report.user_reports).
create table app.user_reports (
    id          uuid primary key default gen_random_uuid(),
    reporter    uuid not null references app.users on delete cascade,
    reported    uuid not null references app.users on delete cascade,
    reason      text not null check (reason in ('spam', 'harassment', 'inappropriate_name',
                                                'inappropriate_avatar', 'other')),
    details     text check (length(details) between 1 and 1000),
    created_at  timestamptz not null default now(),
    check (reporter <> reported)
);
create index user_reports_reported on app.user_reports (reported, created_at);
create index user_reports_time on app.user_reports (created_at);

-- Friend requests by email, per sender: every attempt counts (unknown emails included), so
-- nobody can test thousands of emails for accounts.
create table app.social_settings (
    singleton                boolean primary key default true check (singleton),
    max_friend_requests      integer not null check (max_friend_requests > 0),
    friend_request_window    interval not null check (friend_request_window > interval '0')
);
comment on table app.social_settings is
    'Friend requests by email: at most max_friend_requests attempts per sender per friend_request_window.';
insert into app.social_settings (max_friend_requests, friend_request_window) values (100, interval '1 day');

-- No foreign key on purpose: inserting a referencing row takes a KEY SHARE lock on the sender's
-- user row, which would deadlock with api.lock_pair's FOR UPDATE when two users ask each other
-- at once. The rows of a deleted account are deleted with its personal data.
create table app.friend_request_attempts (
    user_id       uuid not null,
    attempted_at  timestamptz not null default now()
);
create index friend_request_attempts_user_time on app.friend_request_attempts (user_id, attempted_at);

comment on table app.economy_settings is
    'Coins = floor(minutes * coins_per_minute) once a session reaches min_minutes_to_earn. Sessions '
    'recorded offline earn at most offline_daily_coin_cap per day of the user''s time zone and must end '
    'within offline_max_age, so a phone cannot backfill a year of coins.';
