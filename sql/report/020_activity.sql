-- Activity: who focused, how much, and by which path.

-- The per-day views read the UTC-day totals of migration 0013 (kept by triggers in the
-- transaction of each session): a day is 8 rows (its shards), whatever the number of users.
create view report.daily_active_users as
select a.day, sum(a.users)::bigint as active_users
from app.active_users_per_day a
group by a.day
having sum(a.users) > 0;
comment on view report.daily_active_users is
    'One row per UTC day: users who finished at least one focus session that day. '
    'Reads app.active_users_per_day (8 rows a day, kept by trigger); filter on day for its primary key.';

create view report.focused_minutes_per_day as
select t.day,
       sum(t.sessions)::bigint as sessions,
       sum(t.minutes)::bigint as minutes,
       round(sum(t.minutes) / sum(t.sessions), 1) as average_minutes
from app.session_day_totals t
group by t.day
having sum(t.sessions) > 0;
comment on view report.focused_minutes_per_day is
    'One row per UTC day: finished sessions, their total and average minutes. '
    'Reads app.session_day_totals (kept by trigger); filter on day for its primary key.';

create view report.sessions_per_day_by_path as
select t.day,
       t.source as path,
       sum(t.sessions)::bigint as sessions,
       sum(t.minutes)::bigint as minutes,
       sum(t.coins)::bigint as coins
from app.session_day_totals t
group by t.day, t.source
having sum(t.sessions) > 0;
comment on view report.sessions_per_day_by_path is
    'One row per UTC day and path (live: timed by the server; offline: recorded by the phone): '
    'sessions, minutes and coins earned. Reads app.session_day_totals (kept by trigger); filter on day for its primary key.';

create view report.tips_shown_per_level as
select t.rating_level,
       coalesce(sum(v.views), 0)::bigint as times_shown,
       count(distinct v.tip_id) as distinct_tips_shown,
       count(distinct v.user_id) as users,
       (select count(*) from app.mindfulness_tips a where a.rating_level = t.rating_level and a.active) as active_tips
from app.mindfulness_tips t
left join (select l.tip_id, l.user_id, 1 as views from app.tip_views l
           union all
           select c.tip_id, c.user_id, c.views from app.tip_views_compacted c) v on v.tip_id = t.id
group by t.rating_level;
comment on view report.tips_shown_per_level is
    'One row per rating level (good, fine, bad): tips shown after ratings, how many different '
    'tips and users, and how many tips of the level are active. Reads the live views and those '
    'compacted past the horizon (app.tip_views_compacted, with their count); for a period, filter '
    'tip_views.shown_at (tip_views_time), which holds the views after the horizon only.';
