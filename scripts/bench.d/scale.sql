-- scale fill (scripts/bench --scale): users :from to :to (numbered; emails scale<n>@example.com),
-- made with SQL in one pass, never through the API. Run as the superuser: triggers and foreign
-- key checks are off for the fill (session_replication_role = replica), so every derived value a
-- trigger would keep is written here: balances, the minutes rollup (0012), the counts and UTC-day
-- totals (0013; added to what earlier steps and the fixture left). Each user has
--   - 10 finished sessions over the past 30 days, one a day at most (10-59 minutes), with their
--     earnings in the ledger;
--   - a grant of 1,000 coins and one purchase (ledger, user_items), the starters selected;
--   - 5 friends: n±1, n±2 and one across the range (n and n + half of it);
--   - one token; 80% in UTC, 10% in America/New_York, 10% in Asia/Tokyo.
-- The bench fixture's accounts come on top of these; they are what the cases sign in as.
\set ON_ERROR_STOP 1
\timing on
set session_replication_role = replica;
set synchronous_commit = off;
set maintenance_work_mem = '256MB';
set work_mem = '64MB';

create temp table fill as
select n, gen_random_uuid() as id,
       case when n % 10 = 1 then 'America/New_York' when n % 10 = 2 then 'Asia/Tokyo' else 'UTC' end as time_zone
from generate_series(:from::integer, :to::integer) n;
alter table fill add primary key (n);

-- One bcrypt hash for everyone (cost 4): bcrypt per user would take the fill's whole budget.
insert into app.users (id, email, password_hash, display_name, time_zone, created_at, updated_at)
select f.id, format('scale%s@example.com', f.n), h.hash, format('Scale %s', f.n), f.time_zone,
       now() - interval '40 days', now() - interval '40 days'
from fill f, (select crypt('correct horse', gen_salt('bf', 4)) as hash) h;

insert into app.auth_tokens (digest, user_id, expires_at)
select sha256(('scale token ' || f.n)::bytea), f.id, now() + interval '30 days' from fill f;

-- Sessions: day offsets (n + 3k) mod 30 are distinct for k = 0..9, so a user's sessions never
-- overlap; each ends at least 5 minutes ago.
create temp table fill_sessions as
select gen_random_uuid() as id, f.id as user_id, f.n,
       now() - make_interval(days => (f.n + 3 * k) % 30, mins => 5 + (f.n * 7 + k) % 600) as ended_at,
       10 + (f.n * 13 + k * 7) % 50 as minutes
from fill f, generate_series(0, 9) k;
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, coins_earned, created_at)
select s.id, s.user_id, 'offline', s.ended_at - make_interval(mins => s.minutes), s.ended_at,
       tstzrange(s.ended_at - make_interval(mins => s.minutes), s.ended_at), s.minutes, s.minutes, s.ended_at
from fill_sessions s;

insert into app.coin_ledger (user_id, entry, amount, reason, created_at)
select f.id, 'grant', 1000, 'scale fill', now() - interval '40 days' from fill f;
insert into app.coin_ledger (user_id, entry, amount, reason, session_id, created_at)
select s.user_id, 'earn', s.minutes, 'focus session', s.id, s.ended_at from fill_sessions s;

-- Starters, owned and selected; one purchase each (a non-starter item by n).
insert into app.user_items (user_id, item_id, acquired_at)
select f.id, i.id, now() - interval '40 days' from fill f, app.shop_items i where i.is_starter and i.active;
insert into app.user_selections (user_id, kind, item_id)
select f.id, i.kind, i.id from fill f, app.shop_items i where i.is_starter and i.active;
create temp table items as
select (row_number() over (order by i.price, i.id) - 1)::integer as k, i.id, i.price
from app.shop_items i where i.active and not i.is_starter;
insert into app.user_items (user_id, item_id, acquired_at)
select f.id, i.id, now() - interval '1 day' from fill f join items i on i.k = f.n % (select count(*) from items);
insert into app.coin_ledger (user_id, entry, amount, reason, item_id, created_at)
select f.id, 'spend', -i.price, 'purchase', i.id, now() - interval '1 day'
from fill f join items i on i.k = f.n % (select count(*) from items);
update app.users u set balance = 1000 + e.earned - i.price
from fill f
join (select s.user_id, sum(s.minutes) as earned from fill_sessions s group by 1) e on e.user_id = f.id
join items i on i.k = f.n % (select count(*) from items)
where u.id = f.id;

-- Friends: n with n+1 and n+2 (within the range), and the first half with the second.
insert into app.friendships (user_low, user_high, requested_by, status, created_at, accepted_at)
select least(a.id, b.id), greatest(a.id, b.id), a.id, 'accepted', now() - interval '20 days', now() - interval '20 days'
from fill a join fill b on b.n in (a.n + 1, a.n + 2, a.n + (:to::integer - :from::integer + 1) / 2)
where b.n <= :to::integer and (b.n <> a.n + (:to::integer - :from::integer + 1) / 2 or a.n < :from::integer + (:to::integer - :from::integer + 1) / 2);

-- The rollup the trigger would have kept.
insert into app.daily_minutes (user_id, day, minutes)
select s.user_id, (s.ended_at at time zone f.time_zone)::date, sum(s.minutes)
from fill_sessions s join fill f on f.id = s.user_id group by 1, 2;
insert into app.weekly_minutes (user_id, week, minutes)
select s.user_id, date_trunc('week', s.ended_at at time zone f.time_zone)::date, sum(s.minutes)
from fill_sessions s join fill f on f.id = s.user_id group by 1, 2;

-- The counts and UTC-day totals the triggers would have kept (0013).
insert into app.daily_minutes_counts as c (day, minutes, shard, users)
select d.day, d.minutes, app.counter_shard(d.user_id), count(*)
from app.daily_minutes d join fill f on f.id = d.user_id group by 1, 2, 3
on conflict on constraint daily_minutes_counts_pkey do update set users = c.users + excluded.users;
insert into app.weekly_minutes_counts as c (week, minutes, shard, users)
select w.week, w.minutes, app.counter_shard(w.user_id), count(*)
from app.weekly_minutes w join fill f on f.id = w.user_id group by 1, 2, 3
on conflict on constraint weekly_minutes_counts_pkey do update set users = c.users + excluded.users;
insert into app.session_day_totals as t (day, source, shard, sessions, minutes, coins)
select (s.ended_at at time zone 'UTC')::date, 'offline', app.counter_shard(s.user_id), count(*), sum(s.minutes), sum(s.minutes)
from fill_sessions s group by 1, 2, 3
on conflict on constraint session_day_totals_pkey do update
    set sessions = t.sessions + excluded.sessions, minutes = t.minutes + excluded.minutes, coins = t.coins + excluded.coins;
insert into app.session_user_days (user_id, day, sessions)
select s.user_id, (s.ended_at at time zone 'UTC')::date, count(*) from fill_sessions s group by 1, 2;
insert into app.active_users_per_day as a (day, shard, users)
select d.day, app.counter_shard(d.user_id), count(*)
from app.session_user_days d join fill f on f.id = d.user_id group by 1, 2
on conflict on constraint active_users_per_day_pkey do update set users = a.users + excluded.users;
insert into app.ledger_day_totals as t (day, shard, entries, earned, spent, granted)
select (c.created_at at time zone 'UTC')::date, app.counter_shard(c.user_id), count(*),
       coalesce(sum(c.amount) filter (where c.entry = 'earn'), 0),
       coalesce(-sum(c.amount) filter (where c.entry = 'spend'), 0),
       coalesce(sum(c.amount) filter (where c.entry = 'grant'), 0)
from app.coin_ledger c join fill f on f.id = c.user_id group by 1, 2
on conflict on constraint ledger_day_totals_pkey do update
    set entries = t.entries + excluded.entries, earned = t.earned + excluded.earned,
        spent = t.spent + excluded.spent, granted = t.granted + excluded.granted;

reset session_replication_role;
