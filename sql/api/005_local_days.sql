-- api local days: where a user's day and week begin. Every rule that counts "today" or "this
-- week" for a user (stats and streaks, friends' minutes today, leaderboards) asks these
-- functions, in the user's own time zone (app.users.time_zone, default UTC). Report views for
-- DBAs and the offline coin cap (a limit the user must not move by changing zone) count UTC days.

-- The user's time zone (an IANA name, e.g. Pacific/Kiritimati).
create function api.user_time_zone(user_id uuid)
returns text
language sql stable security definer set search_path = public, pg_temp
as $$ select coalesce((select u.time_zone from app.users u where u.id = user_time_zone.user_id), 'UTC') $$;

-- The start of the day (or ISO week, from Monday) that `at` falls in, as a wall clock in
-- `time_zone` reads it, moved `shift` periods on (1: the next one). The arithmetic is done on
-- local wall-clock time, so a day that daylight saving makes 23 or 25 hours long is one day.
create function api.local_period_start(time_zone text, at timestamptz, period text default 'day',
                                       shift integer default 0)
returns timestamptz
language sql stable
as $$
    select (date_trunc(local_period_start.period, local_period_start.at at time zone local_period_start.time_zone)
            + local_period_start.shift * case local_period_start.period when 'week' then interval '1 week'
                                                                          else interval '1 day' end)
           at time zone local_period_start.time_zone
$$;

-- The calendar date `at` falls on in `time_zone`.
create function api.local_date(time_zone text, at timestamptz)
returns date
language sql stable
as $$ select (local_date.at at time zone local_date.time_zone)::date $$;
