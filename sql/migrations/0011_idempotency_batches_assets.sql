-- 0011 idempotency, abandoned sessions, assets.
--
-- app.idempotency_keys: one row per (scope, key) a client sent as Idempotency-Key on a
-- state-changing POST or DELETE. api.idempotent inserts the row BEFORE the work, in the same
-- transaction as the work, and stores the answer before commit: a change that rolled back left
-- no key; a second request with the key waits on the unique index for the first's commit and
-- then replays the stored answer. scope is 'user:<uuid>' for bearer routes and
-- 'email:<lowercased email>' for the public ones. request_digest is SHA-256 of the route and
-- the request with its secret fields (passwords, codes) left out; when the request held a
-- secret, the answer is kept only in sealed_reply, encrypted with a key derived from the whole
-- request (secrets included), so a database reader cannot lift a token from a stored login.
create table app.idempotency_keys (
    scope           text not null check (length(scope) between 1 and 400),
    key             text not null check (key ~ '^[\x21-\x7e]{1,255}$'),
    route           text not null,
    request_digest  bytea not null,
    token_digest    bytea,            -- the bearer token's digest: a revoked token replays its own keys only
    reply           jsonb,            -- the api.reply as JSON; null while the work runs or when sealed
    sealed_reply    bytea,            -- pgp_sym_encrypt(reply, the whole request) for requests with secrets
    created_at      timestamptz not null default now(),
    primary key (scope, key)
);
create index idempotency_keys_created_at on app.idempotency_keys (created_at);  -- app.prune_idempotency_keys
comment on table app.idempotency_keys is
    'Idempotency-Key answers kept 24 h (app.idempotency_settings.retention); pruned by app.prune_idempotency_keys.';

create table app.idempotency_settings (
    singleton  boolean primary key default true check (singleton),
    retention  interval not null default interval '24 hours' check (retention >= interval '1 hour')
);
insert into app.idempotency_settings default values;

-- Deletes keys past the retention; returns how many. Called hourly by the server (with
-- app.prune_events, through api.events_prune) or by a DBA. Keys past the retention are also
-- ignored (and taken over) by api.idempotent, so pruning is housekeeping, not correctness.
create function app.prune_idempotency_keys()
returns integer
language sql
set search_path = public, pg_temp
as $$
    with gone as (
        delete from app.idempotency_keys k
        where k.created_at < now() - (select s.retention from app.idempotency_settings s)
        returning 1)
    select count(*)::integer from gone
$$;

-- Abandoned live sessions: ended by the user before the plan, recorded with 0 minutes and 0
-- coins (so stats, streaks and leaderboards never count them), the time they held kept.
alter table app.focus_sessions add column abandoned boolean not null default false;
alter table app.focus_sessions add constraint focus_sessions_abandoned_earns_nothing
    check (not abandoned or (source = 'live' and ended_at is not null and minutes = 0 and coins_earned = 0));

-- Assets: the server publishes at start the content-hashed name of every file under assets/
-- (app.assets) and the URL prefix (ASSET_BASE_URL, app.asset_settings); item answers join
-- them into absolute image_url and sound_url. SQL keeps the bare keys (shop_items.image).
create table app.asset_settings (
    singleton  boolean primary key default true check (singleton),
    base_url   text check (base_url ~ '^https?://[^\s]+/$')
);
insert into app.asset_settings default values;

create table app.assets (
    key          text primary key check (key ~ '^[a-z0-9_./-]+$'),
    hashed_name  text not null check (hashed_name ~ '^[a-z0-9_./-]+$')
);
