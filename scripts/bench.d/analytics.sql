-- analytics fill (scripts/bench-analytics): :users people (emails analytics<n>@example.com) and
-- what the triggers of migration 0095 would have kept of their year, written set-based as the
-- superuser (triggers off): what the product views read at that size. Each person:
--   - signed up on one of the past 400 UTC days with one of 24 clients (ios, android, web;
--     versions 1.0 to 1.7), their latest sign-in on the same version or the next (app.user_clients);
--   - finished sessions on about 6 of the past 30 UTC days (app.session_user_days, 1-3 a day),
--     their UTC day counted under their client.
-- From those: app.signup_day_totals (sign-ups, D1/D7/D30), app.client_day_totals (active people,
-- sessions, 25 minutes each, half rated), app.client_ledger_day_totals (what such days earn and
-- spend), app.active_users_per_period (weeks, months); then the last 30 days' rows repeated 12
-- times 30 days further back, the rows a year of history leaves. No session or ledger rows: no
-- product view reads them. Also bench.accounts 5001-6000 (tokens) for upload.pgbench's finish.
\set ON_ERROR_STOP 1
\timing on
set session_replication_role = replica;
set synchronous_commit = off;
set work_mem = '256MB';
set maintenance_work_mem = '512MB';

insert into app.clients (platform, version)
select p, '1.' || v from unnest(array['ios', 'android', 'web']) p, generate_series(0, 7) v
on conflict (platform, version) do nothing;

create temp table fill as
select n, gen_random_uuid() as id, current_date - (n::bigint * 7919 % 400)::integer as signup_day,
       (array['ios', 'android', 'web'])[1 + n % 3] as platform, (n / 3 % 8)::integer as version
from generate_series(1, :users::integer) n;

-- One bcrypt hash for everyone (cost 4), as the scale fill.
insert into app.users (id, email, password_hash, display_name, created_at, updated_at)
select f.id, format('analytics%s@example.com', f.n), h.hash, format('Analytics %s', f.n),
       f.signup_day::timestamp at time zone 'UTC', f.signup_day::timestamp at time zone 'UTC'
from fill f, (select crypt('correct horse', gen_salt('bf', 4)) as hash) h;

insert into app.user_clients (user_id, signup_day, signup_client_id, client_id)
select f.id, f.signup_day, s.id, l.id
from fill f
join app.clients s on s.platform = f.platform and s.version = '1.' || f.version
join app.clients l on l.platform = f.platform and l.version = '1.' || least(7, f.version + f.n % 2);

-- Days: day offsets (n + 5k) mod 30, k = 0..5, distinct; not before the sign-up.
insert into app.session_user_days (user_id, day, sessions, client_id)
select f.id, current_date - ((f.n + 5 * k) % 30)::integer, 1 + (f.n + k) % 3, c.client_id
from fill f cross join generate_series(0, 5) k join app.user_clients c on c.user_id = f.id
where current_date - ((f.n + 5 * k) % 30)::integer >= f.signup_day;

insert into app.signup_day_totals (day, client_id, shard, signed_up, d1, d7, d30)
select c.signup_day, c.signup_client_id, app.counter_shard(c.user_id), count(*),
       count(*) filter (where exists (select from app.session_user_days d where d.user_id = c.user_id and d.day = c.signup_day + 1)),
       count(*) filter (where exists (select from app.session_user_days d where d.user_id = c.user_id and d.day = c.signup_day + 7)),
       count(*) filter (where exists (select from app.session_user_days d where d.user_id = c.user_id and d.day = c.signup_day + 30))
from app.user_clients c join fill f on f.id = c.user_id
group by 1, 2, 3
on conflict on constraint signup_day_totals_pkey do update
    set signed_up = signup_day_totals.signed_up + excluded.signed_up, d1 = signup_day_totals.d1 + excluded.d1,
        d7 = signup_day_totals.d7 + excluded.d7, d30 = signup_day_totals.d30 + excluded.d30;

insert into app.client_day_totals (day, client_id, shard, active_users, sessions, minutes, rated)
select d.day, d.client_id, app.counter_shard(d.user_id), count(*), sum(d.sessions), 25 * sum(d.sessions), sum(d.sessions) / 2
from app.session_user_days d join fill f on f.id = d.user_id
group by 1, 2, 3
on conflict on constraint client_day_totals_pkey do update
    set active_users = client_day_totals.active_users + excluded.active_users, sessions = client_day_totals.sessions + excluded.sessions,
        minutes = client_day_totals.minutes + excluded.minutes, rated = client_day_totals.rated + excluded.rated;

insert into app.client_ledger_day_totals (day, client_id, shard, earned, spent, granted, given)
select t.day, t.client_id, t.shard, t.minutes, t.minutes / 2, 0, t.minutes / 20
from app.client_day_totals t
on conflict on constraint client_ledger_day_totals_pkey do nothing;

insert into app.active_users_per_period (period, start, shard, users)
select p.period, date_trunc(p.period, d.day)::date, app.counter_shard(d.user_id), count(distinct d.user_id)
from app.session_user_days d join fill f on f.id = d.user_id cross join unnest(array['week', 'month']) p(period)
group by 1, 2, 3
on conflict on constraint active_users_per_period_pkey do update set users = active_users_per_period.users + excluded.users;

-- A year of history before: the last 30 days' rows again, 30 days further back each time.
insert into app.client_day_totals
select t.day - 30 * k, t.client_id, t.shard, t.active_users, t.sessions, t.minutes, t.rated
from app.client_day_totals t cross join generate_series(1, 12) k
where t.day > current_date - 30
on conflict do nothing;
insert into app.client_ledger_day_totals
select t.day - 30 * k, t.client_id, t.shard, t.earned, t.spent, t.granted, t.given
from app.client_ledger_day_totals t cross join generate_series(1, 12) k
where t.day > current_date - 30
on conflict do nothing;
insert into app.active_users_per_period
select t.period, (t.start - 7 * k * case t.period when 'week' then 1 else 0 end)
                 - make_interval(months => k * case t.period when 'month' then 1 else 0 end), t.shard, t.users
from app.active_users_per_period t cross join generate_series(1, 12) k
where t.start > current_date - 62
on conflict do nothing;

-- What upload.pgbench signs in as: accounts 5001-6000, a week old.
create schema bench;
insert into app.users (email, password_hash, display_name, created_at, updated_at)
select format('bench%s@example.com', n), crypt('correct horse', gen_salt('bf', 4)), format('Bench %s', n),
       now() - interval '7 days', now() - interval '7 days'
from generate_series(5001, 6000) n;
create table bench.accounts as
select substring(u.email from 'bench(\d+)@')::integer as n, u.id as user_id, (api.issue_token(u.id)) ->> 'token' as token
from app.users u where u.email ~ '^bench\d+@example\.com$';
create unique index on bench.accounts (n);

select (select count(*) from app.users) as users,
       (select count(*) from app.user_clients) as user_clients,
       (select count(*) from app.session_user_days) as session_user_days,
       (select count(*) from app.signup_day_totals) as signup_day_totals,
       (select count(*) from app.client_day_totals) as client_day_totals,
       (select count(*) from app.client_ledger_day_totals) as client_ledger_day_totals,
       (select count(*) from app.active_users_per_period) as active_users_per_period;
