-- 0029 streak freezes (2026-12-01).
--
-- A streak freeze: a consumable bought with coins that covers one missed local day of the
-- person's streak. The rules are sql/app/130_streaks.sql's (applied lazily, no nightly job) and
-- sql/api/130_streaks.sql's (the purchase); docs/streaks.md says why. Here: the price a DBA
-- edits, the freezes with the two constraints that carry the rules (at most two held, one
-- freeze per covered day), the purchase as a ledger entry of its own, and the event.

alter table app.economy_settings add column streak_freeze_price integer not null default 50
    check (streak_freeze_price >= 0);
comment on column app.economy_settings.streak_freeze_price is
    'Coins one streak freeze costs (POST /me/streak-freezes); 0 makes them free (no ledger row then).';

-- A freeze is held while covered_day is null, in slot 1 or 2: unique (user_id, slot) holds a
-- person to two held freezes whatever function writes. Using it frees its slot (null) and names
-- the local day it covered: unique (user_id, covered_day), so one day never takes two.
create table app.streak_freezes (
    id           uuid primary key default gen_random_uuid(),
    user_id      uuid not null references app.users,
    slot         smallint check (slot between 1 and 2),
    price        integer not null check (price >= 0),
    bought_at    timestamptz not null default now(),
    covered_day  date,
    used_at      timestamptz,
    unique (user_id, slot),
    unique (user_id, covered_day),
    check ((slot is null) = (covered_day is not null)),
    check ((covered_day is null) = (used_at is null)),
    check (used_at is null or used_at >= bought_at)
);
comment on table app.streak_freezes is
    'Streak freezes: held (slot 1 or 2, at most two per person) until one covers a missed local day of the person''s '
    'streak (covered_day, at most one freeze per day; used_at when that was decided). A freeze covers only a day that '
    'ended after it was bought.';

-- The purchase: its own ledger entry naming the freeze, paid at most once.
alter table app.coin_ledger add column freeze_id uuid references app.streak_freezes;
alter table app.coin_ledger drop constraint coin_ledger_entry_check;
alter table app.coin_ledger add constraint coin_ledger_entry_check check (entry in ('earn', 'spend', 'grant', 'bonus', 'reward', 'freeze'));
alter table app.coin_ledger drop constraint coin_ledger_check1;
alter table app.coin_ledger add constraint coin_ledger_check1 check ((entry in ('spend', 'freeze')) = (amount < 0));
alter table app.coin_ledger add constraint coin_ledger_freeze_has_freeze check ((entry = 'freeze') = (freeze_id is not null));
create unique index coin_ledger_one_payment_per_freeze on app.coin_ledger (freeze_id) where entry = 'freeze';

-- Events: a freeze used.
--   streak.frozen   the person   {day: the covered local day, freezes_held}
alter table app.events drop constraint events_type_check;
alter table app.events add constraint events_type_check check (type in (
    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
    'friend.removed', 'friend.updated', 'balance.changed',
    'catalog.changed', 'tips.changed', 'config.changed',
    'session.started', 'session.finished', 'session.abandoned', 'selection.changed', 'item.acquired',
    'profile.changed', 'settings.changed', 'block.added', 'block.removed',
    'report.created',
    'room.invited', 'room.joined', 'room.left', 'room.started', 'room.finished', 'room.gave_up', 'room.ended',
    'achievement.unlocked',
    'streak.frozen'));
alter table app.events drop constraint events_check;
alter table app.events add constraint events_check
    check ((user_id is null) = (type in ('catalog.changed', 'tips.changed', 'config.changed')));

-- A session that ends (finished, recorded offline, settled) first lets the freezes held cover
-- the missed days before its local day, so a day with minutes never closes a gap a freeze
-- would have bridged (sql/app/130_streaks.sql).
create trigger focus_sessions_streak_freezes
after insert or update of ended_at, minutes on app.focus_sessions
for each row when (new.ended_at is not null and new.minutes > 0)
execute function app.focus_sessions_streak_freezes();
