-- bench fixture: what the cases of scripts/bench need, made with SQL in seconds (never through the
-- API, whose bcrypt would take minutes), in the throwaway bench database only.
--   accounts 1-2000      HTTP purchases; 1-1000 ratings; account 1 has 50 friends (2-51)
--   accounts 2001-4000   pgbench purchases; 2001-3000 ratings
--   accounts 4001-5000   HTTP session uploads;  5001-6000  pgbench session uploads
-- Each side buys, rates and uploads as its own users, so neither meets the other's rows.
create schema bench;

-- Made a week ago: a session never starts before its account (app.focus_sessions_after_account),
-- and the fixture's sessions (yesterday's, uploads from 6 days back) start after it.
insert into app.users (email, password_hash, display_name, created_at, updated_at)
select format('bench%s@example.com', n), crypt('correct horse', gen_salt('bf', 4)), format('Bench %s', n),
       now() - interval '7 days', now() - interval '7 days'
from generate_series(1, 6000) n;

create table bench.accounts as
select substring(u.email from 'bench(\d+)@')::integer as n, u.id as user_id,
       (api.issue_token(u.id)) ->> 'token' as token
from app.users u where u.email ~ '^bench\d+@example\.com$';
create unique index on bench.accounts (n);

-- Enough coins for every purchase to be a real one.
select count(app.grant_coins(user_id, 1000000, 'bench')) from bench.accounts;

-- The items a purchase can buy (starters are owned already), numbered from 0.
create table bench.items as
select (row_number() over (order by i.kind, i.sort_order) - 1)::integer as n, i.id
from app.shop_items i where i.active and not i.is_starter;
create unique index on bench.items (n);

-- Account 1 and its 50 friends.
insert into app.friendships (user_low, user_high, requested_by, status, accepted_at)
select least(a.user_id, f.user_id), greatest(a.user_id, f.user_id), a.user_id, 'accepted', now()
from bench.accounts a join bench.accounts f on f.n between 2 and 51
where a.n = 1;

-- Five finished sessions yesterday for accounts 1-1000 (HTTP) and 2001-3000 (pgbench), to rate
-- (a rating may change, so each can be rated again and again), numbered from 0.
create table bench.sessions as
select (row_number() over (order by a.n, k) - 1)::integer as n, a.n as account, gen_random_uuid() as id,
       a.user_id, date_trunc('day', now()) - interval '1 day' + make_interval(hours => k * 2) as started_at
from bench.accounts a, generate_series(0, 4) k
where a.n <= 1000 or a.n between 2001 and 3000;
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
select id, user_id, 'offline', started_at, started_at + interval '30 minutes',
       tstzrange(started_at, started_at + interval '30 minutes'), 30
from bench.sessions;

-- Some focus today for the global leaderboard: every account but the uploaders (4,000 people).
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
select gen_random_uuid(), a.user_id, 'offline', now() - interval '50 minutes', now() - interval '20 minutes',
       tstzrange(now() - interval '50 minutes', now() - interval '20 minutes'), 30
from bench.accounts a where a.n <= 4000;

-- Tip sync with 5,000 known ids: every active tip, the rest ids the server does not know.
create table bench.sync_body as
select jsonb_build_object('known_ids', jsonb_agg(id))::text as body
from (select t.id::text as id from app.mindfulness_tips t where t.active
      union all
      select gen_random_uuid()::text from generate_series(1, 5000 - (select count(*) from app.mindfulness_tips where active))) ids;

analyze app.users, app.auth_tokens, app.coin_ledger, app.friendships, app.focus_sessions, app.shop_items;
