-- 0050 the ledger archived past a horizon, totals kept (2026-12-06; docs/operations.md, "Growth:
-- the tables that are kept").
--
-- app.coin_ledger grows by a row for every paid session, purchase, reward and gift, and is
-- append-only: at a million people it passes a billion rows. Nothing reads an old entry one
-- by one but the person's own export, room cards (bonus entries, which stay live) and the
-- reports, which all read sums. So a DBA archives the entries before a horizon into per-person
-- totals (CALL app.archive_ledger_all(before => ...), sql/app/160_ledger_archive.sql): each
-- batch deletes entries and adds them to these rows in one transaction, so
--     users.balance = sum(coin_ledger_archive_totals.coins) + sum(coin_ledger.amount)
-- holds at every commit, and the reconciliation views read both (sql/report).
--
-- Only new tables here: app.coin_ledger, which the archive deletes from, gets its switch in
-- 0051, so each migration locks one busy table (the foreign key below locks app.users in SHARE
-- ROW EXCLUSIVE until this commits, a few milliseconds).
set local lock_timeout = '2s';

create table app.coin_ledger_archive_totals (
    user_id  uuid not null references app.users on delete cascade,
    entry    text not null check (entry in ('earn', 'spend', 'grant', 'bonus', 'reward', 'freeze', 'gift')),
    -- A purchase's item (spend entries only), so sales per item stay exact.
    item_id  uuid references app.shop_items,
    entries  bigint not null check (entries > 0),
    coins    bigint not null,
    constraint coin_ledger_archive_totals_item check ((entry = 'spend') = (item_id is not null)),
    constraint coin_ledger_archive_totals_key unique nulls not distinct (user_id, entry, item_id)
);
comment on table app.coin_ledger_archive_totals is
    'The ledger entries archived (app.archive_ledger), summed per person, kind and item: entries how many, coins their '
    'amounts. A balance is these coins plus the live entries (report.ledger_reconciliation).';

-- The horizon: every entry created before archived_before is archived or kept live on purpose
-- (bonus entries); the counters' recount reads the days before it as one total.
create table app.ledger_archive (
    singleton        boolean primary key default true check (singleton),
    archived_before  timestamptz not null default '-infinity'
        check (archived_before = '-infinity'
               or archived_before = (date_trunc('day', archived_before at time zone 'UTC') at time zone 'UTC'))
);
insert into app.ledger_archive default values;
comment on table app.ledger_archive is
    'One row: the latest horizon app.archive_ledger was called with (a UTC midnight; -infinity before the first). '
    'Entries before it are in app.coin_ledger_archive_totals, bonus entries excepted.';
