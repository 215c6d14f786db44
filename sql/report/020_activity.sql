-- Activity: who focused, how much, and by which path.

create view report.daily_active_users as
select (s.ended_at at time zone 'UTC')::date as day,
       count(distinct s.user_id) as active_users
from app.focus_sessions s
where s.ended_at is not null
group by 1;
comment on view report.daily_active_users is
    'One row per UTC day: users who finished at least one focus session that day. '
    'Filter on day to use the focus_sessions_end_day index (the same expression).';

create view report.focused_minutes_per_day as
select (s.ended_at at time zone 'UTC')::date as day,
       count(*) as sessions,
       sum(s.minutes) as minutes,
       round(avg(s.minutes), 1) as average_minutes
from app.focus_sessions s
where s.ended_at is not null
group by 1;
comment on view report.focused_minutes_per_day is
    'One row per UTC day: finished sessions, their total and average minutes. '
    'Filter on day to use the focus_sessions_end_day index (the same expression).';

create view report.sessions_per_day_by_path as
select (s.ended_at at time zone 'UTC')::date as day,
       s.source as path,
       count(*) as sessions,
       sum(s.minutes) as minutes,
       sum(s.coins_earned) as coins
from app.focus_sessions s
where s.ended_at is not null
group by 1, 2;
comment on view report.sessions_per_day_by_path is
    'One row per UTC day and path (live: timed by the server; offline: recorded by the phone): '
    'sessions, minutes and coins earned. Filter on day to use the focus_sessions_end_day index.';

create view report.tips_shown_per_level as
select t.rating_level,
       count(v.id) as times_shown,
       count(distinct v.tip_id) as distinct_tips_shown,
       count(distinct v.user_id) as users,
       (select count(*) from app.mindfulness_tips a where a.rating_level = t.rating_level and a.active) as active_tips
from app.mindfulness_tips t
left join app.tip_views v on v.tip_id = t.id
group by t.rating_level;
comment on view report.tips_shown_per_level is
    'One row per rating level (good, fine, bad): tips shown after ratings, how many different '
    'tips and users, and how many tips of the level are active. Joins tip_views by its '
    'tip_views_user_tip index; for a period, filter tip_views.shown_at (tip_views_time).';
