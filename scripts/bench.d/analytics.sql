-- analytics fill (scripts/bench-analytics): the rollups of migration 0095 for the people of the
-- scale fill (scale.sql), set-based, as its triggers would have kept them, and a year of history
-- before: what the product views read at a million users. Run as the superuser after scale.sql.
--   - 24 clients (ios, android, web; versions 1.0 to 1.7); each person signed up with one on a
--     UTC day of the past 400 (app.user_clients), their latest sign-in on the same or a later version;
--   - app.signup_day_totals from those sign-ups, D1/D7/D30 from the days they finished sessions;
--   - app.client_day_totals, app.client_ledger_day_totals from their sessions and ledger rows
--     (the past 30 days), then repeated 12 times 30 days further back each (the rows a year of
--     history leaves: each view reads every day's rows when not filtered);
--   - app.active_users_per_period from their days, with the same history.
-- Their app.session_user_days rows keep client_id null (not updated: a million rows more to
-- write for nothing a view reads); the finish measured (upload.pgbench) is a bench account's.
\set ON_ERROR_STOP 1
\timing on
set session_replication_role = replica;
set synchronous_commit = off;
set work_mem = '256MB';

insert into app.clients (platform, version)
select p, '1.' || v from unnest(array['ios', 'android', 'web']) p, generate_series(0, 7) v
on conflict (platform, version) do nothing;

create temp table people as
select u.id, row_number() over (order by u.id) as n
from app.users u where u.email like 'scale%@example.com';

insert into app.user_clients (user_id, signup_day, signup_client_id, client_id)
select p.id, current_date - (p.n * 7919 % 400)::integer, s.id, l.id
from people p
join app.clients s on s.platform = (array['ios', 'android', 'web'])[1 + p.n % 3] and s.version = '1.' || (p.n / 3 % 8)
join app.clients l on l.platform = s.platform and l.version = '1.' || least(7, p.n / 3 % 8 + p.n % 2)
on conflict (user_id) do update set signup_day = excluded.signup_day, signup_client_id = excluded.signup_client_id,
                                    client_id = excluded.client_id;

insert into app.signup_day_totals (day, client_id, shard, signed_up, d1, d7, d30)
select c.signup_day, c.signup_client_id, app.counter_shard(c.user_id), count(*),
       count(*) filter (where exists (select from app.session_user_days d where d.user_id = c.user_id and d.day = c.signup_day + 1)),
       count(*) filter (where exists (select from app.session_user_days d where d.user_id = c.user_id and d.day = c.signup_day + 7)),
       count(*) filter (where exists (select from app.session_user_days d where d.user_id = c.user_id and d.day = c.signup_day + 30))
from app.user_clients c join people p on p.id = c.user_id
group by 1, 2, 3;

insert into app.client_day_totals (day, client_id, shard, active_users, sessions, minutes, rated)
select (s.ended_at at time zone 'UTC')::date, c.client_id, app.counter_shard(s.user_id),
       count(distinct s.user_id), count(*), sum(s.minutes), count(*) filter (where s.rating is not null)
from app.focus_sessions s join people p on p.id = s.user_id join app.user_clients c on c.user_id = s.user_id
where s.ended_at is not null
group by 1, 2, 3
on conflict on constraint client_day_totals_pkey do update
    set active_users = client_day_totals.active_users + excluded.active_users, sessions = client_day_totals.sessions + excluded.sessions,
        minutes = client_day_totals.minutes + excluded.minutes, rated = client_day_totals.rated + excluded.rated;

insert into app.client_ledger_day_totals (day, client_id, shard, earned, spent, granted, given)
select (l.created_at at time zone 'UTC')::date, c.client_id, app.counter_shard(l.user_id),
       coalesce(sum(l.amount) filter (where l.entry in ('earn', 'bonus', 'reward')), 0),
       coalesce(-sum(l.amount) filter (where l.entry in ('spend', 'freeze')), 0),
       coalesce(sum(l.amount) filter (where l.entry = 'grant'), 0),
       coalesce(-sum(l.amount) filter (where l.entry = 'gift' and l.amount < 0), 0)
from app.coin_ledger l join people p on p.id = l.user_id join app.user_clients c on c.user_id = l.user_id
group by 1, 2, 3
on conflict on constraint client_ledger_day_totals_pkey do update
    set earned = client_ledger_day_totals.earned + excluded.earned, spent = client_ledger_day_totals.spent + excluded.spent,
        granted = client_ledger_day_totals.granted + excluded.granted, given = client_ledger_day_totals.given + excluded.given;

insert into app.active_users_per_period (period, start, shard, users)
select p.period, date_trunc(p.period, d.day)::date, app.counter_shard(d.user_id), count(distinct d.user_id)
from app.session_user_days d join people u on u.id = d.user_id cross join unnest(array['week', 'month']) p(period)
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

select (select count(*) from app.user_clients) as user_clients,
       (select count(*) from app.signup_day_totals) as signup_day_totals,
       (select count(*) from app.client_day_totals) as client_day_totals,
       (select count(*) from app.client_ledger_day_totals) as client_ledger_day_totals,
       (select count(*) from app.active_users_per_period) as active_users_per_period;
