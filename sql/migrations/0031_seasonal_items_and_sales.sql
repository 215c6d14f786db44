-- 0031 seasonal items and sales (2026-12-01).
--
-- A seasonal item is in the shop only inside its window [available_from, available_until)
-- (either end may be open); outside it the catalog does not list it and it cannot be bought,
-- while those who bought it keep it. A sale is a price for one item inside a window
-- [starts_at, ends_at), in a table a DBA edits; two sales of one item never overlap (an
-- exclusion constraint). A purchase pays the price at its transaction's now(), and its ledger
-- row names the sale it was charged (sale_id), or none for the regular price.
--
-- The catalog follows the clock: a change to a window or a sale is a new catalog version like
-- any catalog change, and the scheduled job shop_windows bumps the version (catalog.changed,
-- which empties every server's cache) once a window's start or end has passed. The rules:
-- docs/shop.md.

alter table app.shop_items
    add column available_from  timestamptz,
    add column available_until timestamptz,
    add constraint shop_items_window_check check (available_from < available_until),
    add constraint shop_items_starter_not_seasonal check (not is_starter or (available_from is null and available_until is null));
comment on column app.shop_items.available_from is 'A seasonal item is in the shop from this time on (null: always was).';
comment on column app.shop_items.available_until is 'A seasonal item leaves the shop at this time (null: never).';

create table app.shop_sales (
    id          bigint generated always as identity primary key,
    item_id     uuid not null references app.shop_items,
    price       integer not null check (price >= 0),
    starts_at   timestamptz not null,
    ends_at     timestamptz not null,
    created_at  timestamptz not null default now(),
    check (starts_at < ends_at),
    constraint shop_sales_no_overlap exclude using gist (item_id with =, tstzrange(starts_at, ends_at) with &&)
);
comment on table app.shop_sales is
    'Sale prices: the item costs price from starts_at (included) to ends_at (excluded); at most one sale of an item '
    'at any moment. Rows are kept after their end (ledger rows name them).';

-- A purchase at a sale price names its sale; the amount is the price paid.
alter table app.coin_ledger add column sale_id bigint references app.shop_sales;
alter table app.coin_ledger add constraint coin_ledger_sale_is_spend check (sale_id is null or entry = 'spend');

-- A changed sale is a new catalog version, announced like a changed item.
create trigger shop_sales_bump_version
after insert or update or delete on app.shop_sales
for each row execute function app.bump_catalog_version();
create trigger shop_sales_inserted_events after insert on app.shop_sales
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger shop_sales_updated_events after update on app.shop_sales
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger shop_sales_deleted_events after delete on app.shop_sales
referencing old table as changed for each statement execute function app.announce_version('catalog.changed');

-- The job that moves the catalog's version when a window's start or end has passed.
alter table app.scheduled_jobs drop constraint scheduled_jobs_name_check;
alter table app.scheduled_jobs add constraint scheduled_jobs_name_check check (name in ('settle_rooms', 'prune', 'expire_gifts', 'shop_windows'));
comment on table app.scheduled_jobs is
    'Jobs api.jobs_run starts when due: settle_rooms (api.rooms_settle: vanished members, unstarted rooms), prune '
    '(api.events_prune: events, Idempotency-Keys, sign-in records and mail past their retention), expire_gifts '
    '(api.gifts_expire: pending gifts past their expiry, refunded) and shop_windows '
    '(api.shop_windows_pass: a new catalog version once a seasonal window or a sale started or ended).';
insert into app.scheduled_jobs (name, every) values ('shop_windows', interval '1 minute');
