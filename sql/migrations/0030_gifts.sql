-- 0030 gifts between friends (2026-12-01).
--
-- A gift: coins, or a shop item the sender buys for the receiver, sent to a friend who accepts
-- or declines it. The rules are the api functions' (sql/api/130_gifts.sql); docs/gifts.md says
-- why. Here: the settings a DBA edits (daily limits, how long a gift waits), the gifts with
-- their state machine, the gift's ledger entries (the sender's hold, then one settlement: the
-- receiver's credit or the sender's refund), the events, the push type and the expiry job.

create table app.gift_settings (
    singleton          boolean primary key default true check (singleton),
    max_per_day        integer not null default 10 check (max_per_day between 0 and 1000),
    max_coins_per_day  integer not null default 500 check (max_coins_per_day between 0 and 1000000),
    expires_after      interval not null default interval '7 days'
                       check (expires_after between interval '1 minute' and interval '90 days')
);
comment on table app.gift_settings is
    'max_per_day: gifts one person may send per local day (their time zone), whatever became of them; '
    'max_coins_per_day: coins they may pay for gifts per local day (coin gifts and item prices together); '
    'expires_after: how long a gift waits for its receiver before it expires and its sender is refunded.';
insert into app.gift_settings default values;

-- pending -> accepted (the receiver is credited the coins or granted the item), declined (by
-- the receiver), refunded (accepted, but the receiver owns the item by then), expired (nobody
-- answered by expires_at: the scheduled job expire_gifts or the next accept/decline), cancelled
-- (the friendship ended: unfriend, block, account deletion). Every state but accepted refunds
-- the sender. app.gifts_transition allows only pending -> one of the others, once.
create table app.gifts (
    id           uuid primary key default gen_random_uuid(),
    sender_id    uuid not null references app.users,
    receiver_id  uuid not null references app.users,
    coins        integer check (coins > 0),
    item_id      uuid references app.shop_items,
    paid         integer not null check (paid >= 0),
    status       text not null default 'pending'
                 check (status in ('pending', 'accepted', 'declined', 'refunded', 'expired', 'cancelled')),
    created_at   timestamptz not null default now(),
    expires_at   timestamptz not null,
    ended_at     timestamptz,
    check (sender_id <> receiver_id),
    check ((coins is null) <> (item_id is null)),
    check (coins is null or paid = coins),
    check (expires_at > created_at),
    check ((status = 'pending') = (ended_at is null)),
    check (ended_at is null or ended_at >= created_at),
    check (status <> 'expired' or ended_at >= expires_at),
    check (status not in ('accepted', 'declined', 'refunded') or ended_at < expires_at)
);
create index gifts_receiver_pending on app.gifts (receiver_id, created_at, id) where status = 'pending';
create index gifts_sender_time on app.gifts (sender_id, created_at, id);
create index gifts_receiver_time on app.gifts (receiver_id);
create index gifts_pending_expiry on app.gifts (expires_at) where status = 'pending';
-- One pending gift of an item per receiver, whoever sends it: two friends do not both pay for it.
create unique index gifts_one_pending_item on app.gifts (receiver_id, item_id) where status = 'pending' and item_id is not null;
comment on table app.gifts is
    'Gifts between friends: coins or an item the sender paid for at send (paid). pending -> accepted, declined, '
    'refunded (the receiver owned the item by the accept), expired (at expires_at) or cancelled (the friendship '
    'ended); every end but accepted refunds the sender through the ledger.';

create trigger gifts_transition
before update on app.gifts
for each row execute function app.gifts_transition();

-- The ledger: entry 'gift' names its gift. The sender's hold (negative) at send, then at most
-- one positive row: the receiver's credit (an accepted coin gift) or the sender's refund. An
-- accepted item gift has no second row (the item is granted instead). The unique indexes make a
-- second hold or a second settlement impossible, whatever function wrote it.
alter table app.coin_ledger add column gift_id uuid references app.gifts;
alter table app.coin_ledger drop constraint coin_ledger_entry_check;
alter table app.coin_ledger add constraint coin_ledger_entry_check check (entry in ('earn', 'spend', 'grant', 'bonus', 'reward', 'freeze', 'gift'));
alter table app.coin_ledger add constraint coin_ledger_gift_has_gift check ((entry = 'gift') = (gift_id is not null));
-- Negative amounts were spends and freezes only; a gift's hold is negative too (its settlement positive).
alter table app.coin_ledger drop constraint coin_ledger_check1;
alter table app.coin_ledger add constraint coin_ledger_sign_check
    check (case entry when 'spend' then amount < 0 when 'freeze' then amount < 0 when 'gift' then true else amount > 0 end);
create unique index coin_ledger_one_gift_hold on app.coin_ledger (gift_id) where entry = 'gift' and amount < 0;
create unique index coin_ledger_one_gift_settlement on app.coin_ledger (gift_id) where entry = 'gift' and amount > 0;

-- Events (sql/app/130_gifts.sql writes them):
--   gift.received   the receiver    {gift_id, user_id: the sender, coins, item_id}
--   gift.accepted   the sender      {gift_id, user_id: the receiver}
--   gift.declined   the sender      {gift_id, user_id: the receiver, status: declined, refunded, expired or cancelled, refund}
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
    'streak.frozen',
    'gift.received', 'gift.accepted', 'gift.declined'));
alter table app.events drop constraint events_check;
alter table app.events add constraint events_check
    check ((user_id is null) = (type in ('catalog.changed', 'tips.changed', 'config.changed')));

create trigger gifts_events
after insert or update of status on app.gifts
for each row execute function app.gifts_events();

-- A friendship ending (unfriend, block, account deletion: each deletes the row under both users'
-- locks or the leaving account's) cancels the pending gifts between the two and refunds them.
create trigger friendships_cancel_gifts
after delete on app.friendships
for each row when (old.status = 'accepted')
execute function app.friendships_cancel_gifts();

-- A phone wakes for a gift received (the sender's display name is the text argument).
insert into app.push_types (type, loc_key) values ('gift.received', 'push.gift.received');

-- The job that expires pending gifts past expires_at and refunds their senders.
alter table app.scheduled_jobs drop constraint scheduled_jobs_name_check;
alter table app.scheduled_jobs add constraint scheduled_jobs_name_check check (name in ('settle_rooms', 'prune', 'expire_gifts'));
insert into app.scheduled_jobs (name, every) values ('expire_gifts', interval '1 minute');
comment on table app.scheduled_jobs is
    'Jobs api.jobs_run starts when due: settle_rooms (api.rooms_settle: vanished members, unstarted rooms), prune '
    '(api.events_prune: events, Idempotency-Keys, sign-in records and mail past their retention) and expire_gifts '
    '(api.gifts_expire: pending gifts past their expiry, refunded).';
