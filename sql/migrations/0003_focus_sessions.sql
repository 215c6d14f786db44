-- 0003 focus sessions and mindfulness tips: the economy settings, sessions that never overlap,
-- coins earned at most once per session, tips and which tips each user was shown.

-- The economy, changeable by a DBA without a deploy. One row.
create table app.economy_settings (
    singleton               boolean primary key default true check (singleton),
    coins_per_minute        numeric(6, 2) not null check (coins_per_minute >= 0),
    min_minutes_to_earn     integer not null check (min_minutes_to_earn >= 1),
    max_session_minutes     integer not null check (max_session_minutes between 1 and 1440),
    offline_daily_coin_cap  integer not null check (offline_daily_coin_cap >= 0),
    offline_max_age         interval not null check (offline_max_age > interval '0'),
    clock_skew              interval not null check (clock_skew between interval '0' and interval '1 hour')
);
comment on table app.economy_settings is
    'Coins = floor(minutes * coins_per_minute) once a session reaches min_minutes_to_earn. Sessions '
    'recorded offline earn at most offline_daily_coin_cap per UTC day and must end within '
    'offline_max_age, so a phone cannot backfill a year of coins.';
insert into app.economy_settings (coins_per_minute, min_minutes_to_earn, max_session_minutes,
                                  offline_daily_coin_cap, offline_max_age, clock_skew)
values (1, 10, 180, 300, interval '7 days', interval '2 minutes');

create table app.focus_sessions (
    id               uuid primary key,  -- made by the server (live) or by the phone (offline)
    user_id          uuid not null references app.users on delete cascade,
    source           text not null check (source in ('live', 'offline')),
    planned_minutes  integer check (planned_minutes between 1 and 1440),
    started_at       timestamptz not null,
    ended_at         timestamptz,        -- null while a live session runs
    -- The time the session holds: [started_at, ended_at), or up to the maximum length while it runs.
    occupies         tstzrange not null,
    minutes          integer check (minutes >= 0),
    coins_earned     integer not null default 0 check (coins_earned >= 0),
    rating           text check (rating in ('good', 'fine', 'bad')),
    rated_at         timestamptz,
    created_at       timestamptz not null default now(),
    check (ended_at is null or ended_at > started_at),
    check ((ended_at is null) = (minutes is null)),
    check (ended_at is not null or source = 'live'),
    check (lower(occupies) = started_at and (ended_at is null or upper(occupies) = ended_at)),
    check ((rating is null) = (rated_at is null) and (rating is null or ended_at is not null)),
    -- One user's sessions never overlap, whichever path they came by.
    constraint focus_sessions_no_overlap exclude using gist (user_id with =, occupies with &&)
);
create index focus_sessions_user_end on app.focus_sessions (user_id, ended_at);
create index focus_sessions_end on app.focus_sessions (ended_at);

-- Earnings name their session; a session earns at most once.
alter table app.coin_ledger add column session_id uuid references app.focus_sessions;
alter table app.coin_ledger add constraint coin_ledger_earn_has_session
    check ((entry = 'earn') = (session_id is not null));
create unique index coin_ledger_one_earning_per_session on app.coin_ledger (session_id) where entry = 'earn';

create table app.mindfulness_tips (
    id            uuid primary key default gen_random_uuid(),
    rating_level  text not null check (rating_level in ('good', 'fine', 'bad')),
    title         text not null check (length(title) between 1 and 80),
    content       text not null check (length(content) between 1 and 1000),
    active        boolean not null default true,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now(),
    unique (rating_level, title)
);

-- Every tip shown after a rating; drives rotation (no repeats until all of a level were shown).
create table app.tip_views (
    id          bigint generated always as identity primary key,
    user_id     uuid not null references app.users on delete cascade,
    tip_id      uuid not null references app.mindfulness_tips,
    session_id  uuid not null references app.focus_sessions on delete cascade,
    shown_at    timestamptz not null default now()
);
create index tip_views_user_tip on app.tip_views (user_id, tip_id, shown_at);
create index tip_views_time on app.tip_views (shown_at);
