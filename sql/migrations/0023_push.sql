-- 0023 push (2026-12-01).
--
-- Push tokens: a phone's APNs or FCM token, registered by PUT /me/push-tokens and tied to the
-- sign-in (app.auth_tokens row) that registered it, so it goes when that sign-in ends: logout
-- and account deletion delete the sign-in (the foreign key cascades), revocation and a password
-- change or reset revoke it (push_tokens_revoked below). One row per token: the same token
-- registered again updates its row, and a token registered by another account moves there.
-- A sign-in holds at most app.push_limits.per_sign_in tokens (2) and an account
-- app.push_limits.per_account (10); registering one more drops the least recently registered.
--
-- The push outbox: app.push_outbox, one row per (event, push token), written by a trigger on
-- app.events in the event's own transaction (app.events_push, sql/app/110_push.sql). Which
-- event types push is the data of app.push_types: a later type (a gift, a room invite) is one
-- row there. The outbox holds ids only; the sender (`focus-island push`) builds the text
-- arguments (the actor's current display name) when it claims a row, so a deleted account's
-- name is never sent and no outbox row holds an address or a name.
--
-- Push settings: quiet hours (local times in the person's time zone; a push due inside them
-- waits for their end) and the types a person muted (nothing is queued for them).

create table app.push_limits (
    singleton    boolean primary key default true check (singleton),
    per_sign_in  integer not null default 2 check (per_sign_in between 1 and 10),
    per_account  integer not null default 10 check (per_account between 1 and 100),
    max_attempts integer not null default 5 check (max_attempts between 1 and 20)
);
insert into app.push_limits default values;
comment on table app.push_limits is
    'per_sign_in: push tokens one sign-in (auth token) may hold; per_account: push tokens one account may hold '
    '(registering one more drops the least recently registered); max_attempts: sends of one outbox row before '
    'it is dropped (429 and 5xx answers are retried with backoff).';

create table app.push_types (
    type     text primary key check (type ~ '^[a-z_]+(\.[a-z_]+)+$'),
    loc_key  text not null check (loc_key ~ '^[a-z_]+(\.[a-z_]+)+$')
);
comment on table app.push_types is
    'The app.events types that wake a phone, and the localisation key the app renders them with. '
    'The event''s payload must name the actor as user_id (the text argument is their display name).';
insert into app.push_types (type, loc_key) values
    ('friend_request.received', 'push.friend_request.received'),
    ('friend_request.accepted', 'push.friend_request.accepted');

create table app.push_tokens (
    token          text primary key check (length(token) between 32 and 512 and token ~ '^[A-Za-z0-9_:.-]+$'),
    user_id        uuid not null references app.users on delete cascade,
    auth_token_id  uuid not null references app.auth_tokens (id) on delete cascade,
    platform       text not null check (platform in ('apns', 'fcm')),
    environment    text not null check (environment in ('sandbox', 'production')),
    app_version    text check (length(app_version) between 1 and 40),
    locale         text check (locale ~ '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$'),
    created_at     timestamptz not null default now(),
    updated_at     timestamptz not null default now(),
    check (platform <> 'apns' or token ~ '^[0-9a-f]{64,200}$')
);
create index push_tokens_user_id on app.push_tokens (user_id, updated_at);
create index push_tokens_auth_token_id on app.push_tokens (auth_token_id, updated_at);
comment on table app.push_tokens is
    'Phones'' push tokens (PUT /me/push-tokens), each tied to the sign-in that registered it and deleted with it, '
    'on revocation, when APNs or FCM answers that it is dead, and by DELETE /me/push-tokens/{token}.';

create table app.push_settings (
    user_id      uuid primary key references app.users on delete cascade,
    quiet_start  time,
    quiet_end    time,
    muted        text[] not null default '{}',
    check ((quiet_start is null) = (quiet_end is null)),
    check (quiet_start is distinct from quiet_end or quiet_start is null)
);
comment on table app.push_settings is
    'PATCH /me settings.push: quiet hours (local times in app.users.time_zone; a push due inside them waits for '
    'quiet_end) and muted push types (app.push_types.type; nothing is queued for them). No row: no quiet hours, nothing muted.';

create table app.push_outbox (
    id          bigint generated always as identity primary key,
    token       text not null references app.push_tokens on delete cascade on update cascade,
    event_id    bigint not null,
    type        text not null references app.push_types,
    data        jsonb not null,
    send_after  timestamptz not null default now(),
    attempts    integer not null default 0 check (attempts >= 0),
    last_error  text check (length(last_error) <= 200),
    created_at  timestamptz not null default now(),
    unique (event_id, token)
);
create index push_outbox_due on app.push_outbox (send_after, id);
create index push_outbox_token on app.push_outbox (token);
comment on table app.push_outbox is
    'Pushes to send, one row per (event, push token), written in the event''s transaction; drained by '
    '`focus-island push` (api.push_claim with FOR UPDATE SKIP LOCKED, api.push_settle). data: the event''s ids.';

-- A sign-in revoked (one device signed out elsewhere, a password change or reset) takes its
-- push tokens with it; a deleted sign-in's go by the foreign key.
create trigger push_tokens_revoked
after update of revoked_at on app.auth_tokens
for each row
when (old.revoked_at is null and new.revoked_at is not null)
execute function app.push_tokens_revoked();

-- The event types of app.push_types queue a push per token of the recipient (app.events_push).
create trigger events_push
after insert on app.events
for each row
when (new.user_id is not null)
execute function app.events_push();
