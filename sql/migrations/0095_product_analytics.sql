-- 0095 product analytics (2026-12-07): the client of each sign-in, and the rollups the product
-- views of schema report read (sql/report/080_product.sql, sql/report/README.md), kept by the
-- triggers of 0013 (their bodies in sql/app/070_counters.sql) in the transaction of each
-- session and ledger row, so no view reads app.focus_sessions or app.coin_ledger.
--
-- - app.clients: one row per (platform, version) an `X-Client-Version: <platform>/<version>`
--   header named at a sign-in or sign-up (`unknown`, `unknown` without one), numbered so the
--   rollups carry an integer.
-- - app.client_sign_ins: sign-ins per person, UTC day and client (api.record_sign_in).
-- - app.user_clients: per person, the client they signed up with (null: before 0095) and the
--   client of their latest sign-in, which their activity is counted under.
-- - app.session_user_days.client_id: the client a person's UTC day of sessions is counted under
--   (their latest sign-in's when the day's first session finished; null for days begun before
--   0095, which the by-client rollups leave out), so a session leaving the day leaves the same
--   totals it entered.
-- - the rollups, each split in 8 shards by app.counter_shard as those of 0013:
--   app.signup_day_totals (sign-ups per UTC day and client, and how many of them were active on
--   the 1st, 7th and 30th day after), app.client_day_totals (active people, finished sessions,
--   their minutes, rated sessions per UTC day and client), app.client_ledger_day_totals (coins
--   earned, spent, granted and given as gifts per UTC day and client), and
--   app.active_users_per_period (people active per UTC calendar week and month).
-- History is not backfilled: these count from this migration on (the per-day views of 0013
-- keep theirs). New tables but one; one busy table altered (a nullable column, no rewrite).
set local lock_timeout = '2s';

alter table app.session_user_days add column client_id integer;
comment on column app.session_user_days.client_id is
    'The app.clients row this user-day is counted under in app.client_day_totals (null: begun before 0095, not counted there).';

create table app.clients (
    id        integer generated always as identity primary key,
    platform  text not null check (platform = 'unknown' or platform ~ '^[a-z][a-z0-9-]{0,15}$'),
    version   text not null check (version = 'unknown' or app.client_version_key(version) is not null),
    unique (platform, version)
);
comment on table app.clients is
    'Each (platform, version) an X-Client-Version header named at a sign-in (unknown, unknown without one): the key of the product rollups.';
comment on column app.clients.platform is
    'personal: no (an app platform, as ios, android, web); on erasure: kept (shared by everyone on it)';
comment on column app.clients.version is
    'personal: no (an app version, as 1.2.9); on erasure: kept (shared by everyone on it)';
insert into app.clients (platform, version) values ('unknown', 'unknown');

create table app.client_sign_ins (
    user_id    uuid not null references app.users on delete cascade,
    day        date not null,  -- UTC
    client_id  integer not null references app.clients,
    sign_ins   integer not null check (sign_ins > 0),
    primary key (user_id, day, client_id)
);
comment on table app.client_sign_ins is
    'Sign-ins and sign-ups per person, UTC day and app client (api.record_sign_in). Deleted at erasure.';

create table app.user_clients (
    user_id           uuid primary key references app.users on delete cascade,
    signup_day        date,  -- UTC; null: signed up before 0095
    signup_client_id  integer references app.clients,
    client_id         integer not null references app.clients,
    check ((signup_day is null) = (signup_client_id is null))
);
comment on table app.user_clients is
    'Per person: the UTC day and client of their sign-up (null: signed up before 0095), the cohort of '
    'app.signup_day_totals they count in, and the client of their latest sign-in, which their sessions and '
    'coins are counted under. No row: not signed in since 0095 (counted as unknown).';

create table app.signup_day_totals (
    day        date not null,  -- UTC day of the sign-up (app.user_clients.signup_day)
    client_id  integer not null,
    shard      smallint not null,
    signed_up  integer not null check (signed_up >= 0),
    d1         integer not null default 0 check (d1 >= 0),
    d7         integer not null default 0 check (d7 >= 0),
    d30        integer not null default 0 check (d30 >= 0),
    primary key (day, client_id, shard)
);
comment on table app.signup_day_totals is
    'Sign-ups per UTC day and sign-up client, in 8 shards, and how many of them finished a session on the UTC day 1, 7 '
    'and 30 days after. Kept by api.record_sign_in (signed_up) and app.count_user_day (d1, d7, d30).';

create table app.client_day_totals (
    day           date not null,  -- UTC day of ended_at
    client_id     integer not null,
    shard         smallint not null,
    -- integers (a shard's day of one client holds far fewer): the views sum them in 64 bits,
    -- not in numeric, which halves the time of a year's rows
    active_users  integer not null check (active_users >= 0),
    sessions      integer not null check (sessions >= 0),
    minutes       integer not null check (minutes >= 0),
    rated         integer not null check (rated >= 0),
    primary key (day, client_id, shard)
);
comment on table app.client_day_totals is
    'Per UTC day and client (app.session_user_days.client_id), in 8 shards: people who finished a session, finished '
    'sessions, their minutes, and those rated. Kept by app.count_user_day and app.focus_sessions_day_totals.';

create table app.client_ledger_day_totals (
    day        date not null,  -- UTC day of created_at
    client_id  integer not null,
    shard      smallint not null,
    earned     bigint not null,
    spent      bigint not null,
    granted    bigint not null,
    given      bigint not null,
    primary key (day, client_id, shard)
);
comment on table app.client_ledger_day_totals is
    'Coins per UTC day and the person''s client (app.user_clients) at the ledger row, in 8 shards: earned (sessions, '
    'room bonuses, rewards), spent (items, freezes), granted (by the house), given (sent as gifts). Kept by app.coin_ledger_day_totals.';

create table app.active_users_per_period (
    period  text not null check (period in ('week', 'month')),
    start   date not null,  -- the UTC calendar week's Monday, the month's first day
    shard   smallint not null,
    users   integer not null check (users >= 0),
    primary key (period, start, shard)
);
comment on table app.active_users_per_period is
    'People who finished a session in a UTC calendar week or month, in 8 shards. Kept by app.count_user_day.';
comment on column app.active_users_per_period.period is
    'personal: no (week or month); on erasure: kept (a count of everyone)';
