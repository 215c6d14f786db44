-- api local days: where a user's day and week begin. Every rule that counts "today" or "this
-- week" for a user (stats and streaks, friends' minutes today, leaderboards) asks these
-- functions, in the user's own time zone (app.users.time_zone, default UTC). Report views for
-- DBAs count UTC days. Limits never count a local day (docs/economy.md, "Limits count UTC
-- days"): the zone is a setting the user changes at will, so a limit per local day would open
-- afresh at each change. A limit per day counts api.limit_day (the offline coin cap, gifts'
-- daily limits, and what their answers say about when they reset); any other limit counts a
-- rolling window back from now(), which no zone moves either.

-- The user's time zone (an IANA name, e.g. Pacific/Kiritimati).
create function api.user_time_zone(user_id uuid)
returns text
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select coalesce((select u.time_zone from app.users u where u.id = user_time_zone.user_id), 'UTC'));
end
$$;

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

-- An optional time zone field of a body: null when absent, else an IANA name PostgreSQL knows
-- (pg_timezone_names), else 400 invalid_field; the rule PATCH /me applies to settings.time_zone.
create function api.time_zone_field(body jsonb, field text)
returns text
language plpgsql volatile
as $$
declare
    v_time_zone text := api.text_field(time_zone_field.body, time_zone_field.field, required => false, max_length => 64);
begin
    if v_time_zone is not null and not exists (select from pg_timezone_names z where z.name = v_time_zone) then
        perform api.fail_field(time_zone_field.field, 'must be an IANA time zone name, like Europe/Paris.');
    end if;
    return v_time_zone;
end
$$;

-- The day a limit counted per day counts `at` in: the UTC day holding it, [its 00:00 UTC, the
-- next 00:00 UTC). Every limit per day uses this one partition of time, whatever the user's
-- time zone: each instant falls on exactly one such day, always 24 hours long, so no change of
-- settings.time_zone opens a fresh day, and upper(api.limit_day(now())) is when every such limit
-- resets (what Retry-After says).
create function api.limit_day(at timestamptz)
returns tstzrange
language sql stable
as $$
    select tstzrange(date_trunc('day', limit_day.at at time zone 'UTC') at time zone 'UTC',
                     (date_trunc('day', limit_day.at at time zone 'UTC') + interval '1 day') at time zone 'UTC')
$$;

-- The whole seconds from `at` to the end of its limit day (at least 1): a Retry-After for a
-- limit counted per day.
create function api.limit_day_retry_after(at timestamptz)
returns integer
language sql stable
as $$ select greatest(1, ceil(extract(epoch from upper(api.limit_day(limit_day_retry_after.at)) - limit_day_retry_after.at)))::integer $$;
