-- Streaks: a run of consecutive local days (the user's time zone, app.users.time_zone) with
-- focused minutes. The current streak is alive while its last day is today or yesterday; the
-- longest is the longest run ever. Read by the achievements (streak_days).
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- The user's current and longest streak in days (0 and 0 without minutes), as GET /me/stats counts them.
create or replace function app.user_streak(p_user_id uuid)
returns table (current_days integer, longest_days integer)
language plpgsql stable
set search_path = public, pg_temp
as $$
declare
    v_time_zone text := coalesce((select u.time_zone from app.users u where u.id = p_user_id), 'UTC');
    v_today date := (now() at time zone v_time_zone)::date;
begin
    return query
    with days as (
        select (s.ended_at at time zone v_time_zone)::date as day
        from app.focus_sessions s
        where s.user_id = p_user_id and s.ended_at is not null
        group by 1
        having sum(s.minutes) > 0
    ),
    runs as (
        select max(numbered.day) as last_day, count(*)::integer as length
        from (select d.day, d.day - (row_number() over (order by d.day))::integer as run from days d) numbered
        group by numbered.run
    )
    select coalesce((select r.length from runs r where r.last_day >= v_today - 1), 0),
           coalesce((select max(r.length) from runs r), 0);
end
$$;
