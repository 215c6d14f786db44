-- Product analytics (2026-12-07): sign-ups, retention, active people, sessions, ratings and
-- coins by the app's platform and version. Each view reads the rollups of migration 0095, kept
-- by triggers in the transaction of each sign-in, session and ledger row (sql/app/070_counters.sql,
-- api.record_sign_in): a few rows per day and client, never app.focus_sessions or
-- app.coin_ledger, so each answers in milliseconds at any number of users (docs/performance.md).
-- Days are UTC. A person's client is the X-Client-Version of their latest sign-in (`unknown`
-- without one); they count from 0095 on (history before is not in these views).

-- Each view sums a rollup's shards by its key first and names the client after (a join of a
-- few rows, not of every shard's row: half the time of a whole year's view).
create view report.signups_per_day as
select t.day, c.platform, c.version, t.signups
from (select s.day, s.client_id, sum(s.signed_up)::bigint as signups
      from app.signup_day_totals s
      group by s.day, s.client_id
      having sum(s.signed_up) > 0) t
join app.clients c on c.id = t.client_id;
comment on view report.signups_per_day is
    'One row per UTC day and the platform and version signed up with: sign-ups (since migration 0095). '
    'Reads app.signup_day_totals (kept at each sign-up); filter on day.';

-- A cohort's day N is over once the UTC day N days after each sign-up has ended: only those
-- sign-ups count, above and below the line, so a week still in progress shows the rate of the
-- people who could already have come back (null while none could).
create view report.retention_by_signup_week as
with today as (select (now() at time zone 'UTC')::date as day),
     days as (select s.day, s.client_id, sum(s.signed_up) as signed_up, sum(s.d1) as d1, sum(s.d7) as d7, sum(s.d30) as d30
              from app.signup_day_totals s group by s.day, s.client_id)
select date_trunc('week', t.day)::date as week,
       c.platform,
       sum(t.signed_up)::bigint as signed_up,
       sum(t.d1) filter (where t.day + 1 < today.day)::bigint as d1,
       round(100.0 * sum(t.d1) filter (where t.day + 1 < today.day)
             / nullif(sum(t.signed_up) filter (where t.day + 1 < today.day), 0), 1) as d1_percent,
       sum(t.d7) filter (where t.day + 7 < today.day)::bigint as d7,
       round(100.0 * sum(t.d7) filter (where t.day + 7 < today.day)
             / nullif(sum(t.signed_up) filter (where t.day + 7 < today.day), 0), 1) as d7_percent,
       sum(t.d30) filter (where t.day + 30 < today.day)::bigint as d30,
       round(100.0 * sum(t.d30) filter (where t.day + 30 < today.day)
             / nullif(sum(t.signed_up) filter (where t.day + 30 < today.day), 0), 1) as d30_percent
from days t
join app.clients c on c.id = t.client_id
cross join today
group by grouping sets ((date_trunc('week', t.day)::date), (date_trunc('week', t.day)::date, c.platform))
having sum(t.signed_up) > 0;
comment on view report.retention_by_signup_week is
    'One row per UTC week of sign-up (its Monday), and per week and sign-up platform (platform null: all platforms): '
    'people who signed up, and how many of them finished a session on the UTC day 1, 7 and 30 days after their '
    'sign-up day (dN, dN_percent), counting only sign-ups whose day N has ended. Reads app.signup_day_totals.';

create view report.active_users as
select 'day'::text as period, a.day as start, sum(a.users)::bigint as active_users
from app.active_users_per_day a
group by a.day
having sum(a.users) > 0
union all
select p.period, p.start, sum(p.users)::bigint
from app.active_users_per_period p
group by p.period, p.start
having sum(p.users) > 0;
comment on view report.active_users is
    'DAU, WAU, MAU: one row per period (day, week: a UTC calendar week from Monday, month: a UTC calendar month) and '
    'its first day: people who finished at least one session in it. Days since migration 0013, weeks and months '
    'since 0095. Reads app.active_users_per_day and app.active_users_per_period; filter on period and start.';

create view report.activity_per_day_by_client as
select t.day, c.platform, c.version, t.active_users, t.sessions, t.minutes,
       round(t.sessions::numeric / nullif(t.active_users, 0), 2) as sessions_per_active_user,
       round(t.minutes::numeric / nullif(t.active_users, 0), 1) as minutes_per_active_user,
       t.rated,
       round(100.0 * t.rated / t.sessions, 1) as rated_percent
from (select d.day, d.client_id, sum(d.active_users)::bigint as active_users, sum(d.sessions)::bigint as sessions,
             sum(d.minutes)::bigint as minutes, sum(d.rated)::bigint as rated
      from app.client_day_totals d
      group by d.day, d.client_id
      having sum(d.sessions) > 0) t
join app.clients c on c.id = t.client_id;
comment on view report.activity_per_day_by_client is
    'One row per UTC day and client (platform, version of the person''s latest sign-in when their first session of '
    'the day finished): people who finished a session, sessions, minutes, each per active person, and the share '
    'of the day''s sessions rated. Since migration 0095; reads app.client_day_totals, filter on day.';

create view report.coin_economy_per_day_by_client as
select t.day, c.platform, c.version, t.earned, t.spent, t.granted, t.given
from (select l.day, l.client_id, sum(l.earned)::bigint as earned, sum(l.spent)::bigint as spent,
             sum(l.granted)::bigint as granted, sum(l.given)::bigint as given
      from app.client_ledger_day_totals l
      group by l.day, l.client_id) t
join app.clients c on c.id = t.client_id;
comment on view report.coin_economy_per_day_by_client is
    'One row per UTC day and client (of the person''s latest sign-in at each ledger row): coins earned (sessions, '
    'room bonuses, achievements), spent (items, freezes), granted (by the house) and given (sent as gifts). '
    'Since migration 0095; reads app.client_ledger_day_totals, filter on day.';
