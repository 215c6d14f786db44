-- 0004 friends: one row per pair of users (a pending request or a friendship), an append-only
-- history of every transition, and avatars.

create table app.friendships (
    id            uuid primary key default gen_random_uuid(),  -- the request's id
    user_low      uuid not null references app.users on delete cascade,
    user_high     uuid not null references app.users on delete cascade,
    requested_by  uuid not null,
    status        text not null check (status in ('pending', 'accepted')),
    created_at    timestamptz not null default now(),
    accepted_at   timestamptz,
    unique (user_low, user_high),                   -- one row per pair, whoever asked
    check (user_low < user_high),                   -- ordered ids: (a, b) and (b, a) are one pair
    check (requested_by in (user_low, user_high)),
    check ((status = 'accepted') = (accepted_at is not null))
);
create index friendships_user_high on app.friendships (user_high);
create index friendships_pending_by on app.friendships (requested_by) where status = 'pending';
comment on table app.friendships is
    'A pending request or a friendship. Declined, cancelled and removed pairs are deleted (and '
    'recorded in friendship_events), so the two may ask each other again later.';

create table app.friendship_events (
    id          bigint generated always as identity primary key,
    request_id  uuid not null,
    user_low    uuid not null,
    user_high   uuid not null,
    actor       uuid not null,
    action      text not null check (action in ('asked', 'accepted', 'declined', 'cancelled', 'removed')),
    created_at  timestamptz not null default now(),
    check (actor in (user_low, user_high))
);
create index friendship_events_time on app.friendship_events (created_at);
create index friendship_events_pair on app.friendship_events (user_low, user_high);
create trigger friendship_events_append_only
before update or delete on app.friendship_events
for each statement execute function app.forbid_change();

-- At most 256 KiB, PNG or JPEG, recognised by their first bytes whatever the client said.
create table app.avatars (
    user_id       uuid primary key references app.users on delete cascade,
    content_type  text not null check (content_type in ('image/png', 'image/jpeg')),
    data          bytea not null check (length(data) between 4 and 262144),
    updated_at    timestamptz not null default now(),
    check (case content_type
               when 'image/png' then substring(data from 1 for 8) = '\x89504e470d0a1a0a'::bytea
               when 'image/jpeg' then substring(data from 1 for 3) = '\xffd8ff'::bytea
           end)
);
