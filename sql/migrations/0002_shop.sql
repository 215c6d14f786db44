-- 0002 shop: the catalog, the coin ledger with a cached balance, ownership and selection.

-- The catalog. Items are never deleted (purchases refer to them); retiring one clears `active`.
create table app.shop_items (
    id          uuid primary key default gen_random_uuid(),
    kind        text not null check (kind in ('pet', 'sound', 'furniture')),
    name        text not null check (length(name) between 1 and 60),
    description text not null check (length(description) between 1 and 200),
    price       integer not null check (price >= 0),
    image       text not null check (image ~ '^[a-z0-9_./-]+$'),
    sound       text check (sound ~ '^[a-z0-9_./-]+$'),
    sort_order  integer not null default 0,
    is_starter  boolean not null default false,
    active      boolean not null default true,
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now(),
    unique (kind, name),
    unique (id, kind),                                   -- lets selections check the kind by foreign key
    check ((kind = 'sound') = (sound is not null)),      -- sounds, and only sounds, have audio
    check (not is_starter or (price = 0 and active))     -- starters are free and on sale
);
create unique index shop_items_one_starter_per_kind on app.shop_items (kind) where is_starter;

-- The catalog's version: bumped by every row that really changes, so the ETag of
-- GET /shop/items changes exactly when the catalog does (idempotent seeds change nothing).
create table app.catalog_version (
    singleton  boolean primary key default true check (singleton),
    version    bigint not null default 1,
    changed_at timestamptz not null default now()
);
insert into app.catalog_version default values;

create function app.bump_catalog_version()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.catalog_version set version = version + 1, changed_at = now();
    return null;
end
$$;
create trigger shop_items_bump_version
after insert or update or delete on app.shop_items
for each row execute function app.bump_catalog_version();

-- The cached balance: changed only by the ledger trigger below, never negative.
alter table app.users add column balance integer not null default 0 check (balance >= 0);

-- Append-only ledger: earn (focus sessions), spend (purchases), grant (support, tests).
create table app.coin_ledger (
    id          bigint generated always as identity primary key,
    user_id     uuid not null references app.users on delete cascade,
    entry       text not null check (entry in ('earn', 'spend', 'grant')),
    amount      integer not null check (amount <> 0),
    reason      text not null check (length(reason) between 1 and 200),
    item_id     uuid references app.shop_items,
    created_at  timestamptz not null default now(),
    check (entry <> 'earn' or amount > 0),
    check ((entry = 'spend') = (amount < 0)),
    check ((entry = 'spend') = (item_id is not null))
);
create index coin_ledger_user_time on app.coin_ledger (user_id, created_at);
create index coin_ledger_time on app.coin_ledger (created_at);

-- Every ledger row moves the cached balance in the same transaction; the balance CHECK then
-- refuses any spend the user cannot afford, whatever function wrote it.
create function app.apply_ledger_entry()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.users set balance = balance + new.amount where id = new.user_id;
    return null;
end
$$;
create trigger coin_ledger_apply
after insert on app.coin_ledger
for each row execute function app.apply_ledger_entry();

create function app.forbid_change()
returns trigger
language plpgsql
as $$
begin
    raise exception '% is append-only', tg_table_name using errcode = 'restrict_violation';
end
$$;
create trigger coin_ledger_append_only
before update or delete on app.coin_ledger
for each statement execute function app.forbid_change();

-- Support and tests: grant (or, with a negative amount, take back) coins with a reason.
-- Returns the new balance; taking back more than the balance fails on the balance CHECK.
create function app.grant_coins(user_id uuid, coins integer, reason text)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_balance integer;
begin
    insert into app.coin_ledger (user_id, entry, amount, reason)
    values (grant_coins.user_id, 'grant', grant_coins.coins, grant_coins.reason);
    select u.balance into v_balance from app.users u where u.id = grant_coins.user_id;
    return v_balance;
end
$$;
comment on function app.grant_coins(uuid, integer, text) is
    'Support tool: adds a grant to the ledger (balance follows); not reachable over HTTP.';

-- What each user owns; rows are only ever added.
create table app.user_items (
    user_id     uuid not null references app.users on delete cascade,
    item_id     uuid not null references app.shop_items,
    acquired_at timestamptz not null default now(),
    primary key (user_id, item_id)
);

-- What each user shows: one item per kind, which must be owned and of that kind.
create table app.user_selections (
    user_id  uuid not null,
    kind     text not null,
    item_id  uuid not null,
    primary key (user_id, kind),
    foreign key (user_id, item_id) references app.user_items on delete cascade,
    foreign key (item_id, kind) references app.shop_items (id, kind)
);
