-- 0025 web: what the web pages (web/, served by the same binary; docs/web.md) need in the
-- database: deleting an account without the app through a code mailed to its address, the
-- moderators' console sessions, a history of display names for the console's user page, an
-- audit of account deletions made on the web or by support, and a report.created event that
-- reaches every moderator. The rules are the api functions' (sql/api/120_web.sql).

-- POST /account/delete only queues the email here, for every email alike (as the password
-- reset does): the mailer's app.take_outgoing_mail() turns the queue into codes and mails
-- (app.send_deletion_codes, sql/app/110_web.sql).
create table app.account_deletion_requests (
    id          bigint generated always as identity primary key,
    email       citext not null,
    user_id     uuid,  -- the account holding the email when asked (app.link_to_email_holder)
    created_at  timestamptz not null default now()
);
create index account_deletion_requests_user on app.account_deletion_requests (user_id) where user_id is not null;
create index account_deletion_requests_time on app.account_deletion_requests (created_at);  -- app.prune_personal_data
comment on table app.account_deletion_requests is
    'Queued web deletion requests (POST /account/delete): the mailer turns them into codes for live accounts; '
    'unknown emails get nothing. Deleted after reset_code_ttl if never taken.';
create trigger account_deletion_requests_link
before insert on app.account_deletion_requests
for each row execute function app.link_to_email_holder('email');

-- A mailed deletion code, stored only as its digest; the reset's lifetime and limits
-- (app.auth_settings: reset_code_ttl, max_reset_mails per reset_mail_window, max_code_attempts).
create table app.account_deletion_codes (
    id               uuid primary key default gen_random_uuid(),
    user_id          uuid not null references app.users on delete cascade,
    digest           bytea not null check (length(digest) = 32),
    created_at       timestamptz not null default now(),
    expires_at       timestamptz not null,
    used_at          timestamptz,
    failed_attempts  integer not null default 0 check (failed_attempts >= 0),
    check (expires_at > created_at)
);
create index account_deletion_codes_user on app.account_deletion_codes (user_id, created_at);
comment on table app.account_deletion_codes is
    'Codes mailed for deleting an account on the web (SHA-256 digest only): single use, reset_code_ttl, '
    'void after max_code_attempts wrong guesses; an earlier unused code stops working when a new one is mailed.';

-- Every account deletion made other than by DELETE /me: on the web page with a mailed code,
-- or by support in SQL (app.delete_user). Who and why; the account is the tombstone.
create table app.account_deletions (
    id          bigint generated always as identity primary key,
    user_id     uuid not null references app.users,
    via         text not null check (via in ('web', 'support')),
    reason      text not null check (length(reason) between 1 and 1000),
    deleted_by  text not null default session_user,
    created_at  timestamptz not null default now()
);
create index account_deletions_user on app.account_deletions (user_id);
comment on table app.account_deletions is
    'Audit of account deletions on the web (via web, deleted_by the server''s role) and by support '
    '(via support: app.delete_user, deleted_by the DBA''s login), with the reason. Append-only by convention; '
    'names only the anonymous tombstone.';

-- The moderators' console: a session is an ordinary token (app.auth_tokens, so it shows in
-- GET /me/tokens and revoking it ends the session) issued by the console's sign-in with a
-- shorter life, and the CSRF token every form that changes something must carry.
create table app.web_sessions (
    digest      bytea primary key references app.auth_tokens (digest) on delete cascade,
    csrf_token  text not null check (length(csrf_token) between 32 and 64),
    created_at  timestamptz not null default now()
);
comment on table app.web_sessions is
    'Moderator console sessions: the cookie''s token (app.auth_tokens, expires after web_settings.moderator_session_ttl, '
    'revocable like any token) and the CSRF token its forms carry.';

create table app.web_settings (
    singleton              boolean primary key default true check (singleton),
    moderator_session_ttl  interval not null check (moderator_session_ttl between interval '5 minutes' and interval '1 day')
);
comment on table app.web_settings is
    'moderator_session_ttl: how long a moderator console sign-in works (its token''s expires_at).';
insert into app.web_settings (moderator_session_ttl) values (interval '8 hours');

-- Display names a user has had, from this migration on (the name held then is the first row),
-- for the moderators' user page. Deleted with the account.
create table app.display_name_history (
    id            bigint generated always as identity primary key,
    user_id       uuid not null references app.users on delete cascade,
    display_name  text not null,
    set_at        timestamptz not null default now()
);
create index display_name_history_user on app.display_name_history (user_id, set_at);
comment on table app.display_name_history is
    'Each display name a user took (sign-up, PATCH /me, a moderator''s rename), from migration 0025 on; '
    'deleted when the account is (app.display_name_history_record).';
insert into app.display_name_history (user_id, display_name, set_at)
select u.id, u.display_name, u.updated_at from app.users u where u.deleted_at is null;

create trigger users_display_name_history
after insert or update of display_name, deleted_at on app.users
for each row execute function app.display_name_history_record();

-- report.created: one event to each moderator when a report is filed (the console's queue
-- updates live). The type list is every type there is.
alter table app.events drop constraint events_type_check;
alter table app.events add constraint events_type_check check (type in (
    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
    'friend.removed', 'friend.updated', 'balance.changed',
    'catalog.changed', 'tips.changed', 'config.changed',
    'session.started', 'session.finished', 'session.abandoned', 'selection.changed', 'item.acquired',
    'profile.changed', 'settings.changed', 'block.added', 'block.removed',
    'report.created'));

create trigger user_reports_tell_moderators
after insert on app.user_reports
for each row execute function app.tell_moderators_of_report();
