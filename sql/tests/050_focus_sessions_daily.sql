-- GET /me/stats/daily: minutes and sessions per calendar day of the person's time zone, every
-- day of [from, to] present (zeros for nothing), by the local day of a session's end: a local day
-- that spans UTC midnight, a week's Sunday and Monday, a day that daylight saving makes 23 hours
-- long. Fixed dates in the past, so the answer is the same at any clock; the default range is
-- the last 7 local days to today. Bad dates and ranges are 400.
begin;
select plan(16);
select test.new_user(name) from unnest(array['kim', 'ada', 'ted']) as name;
select api.me_update(test.token('kim'), '{}', '{"settings": {"time_zone": "Asia/Tokyo"}}');          -- UTC+9 all year
select api.me_update(test.token('ada'), '{}', '{"settings": {"time_zone": "Europe/Berlin"}}');       -- 2026-03-29 has 23 hours
create function pg_temp.daily(name text, params jsonb) returns jsonb language sql as $$
    select (api.me_stats_daily_get(test.token(name), params, '{}')).body
$$;
create function pg_temp.days(body jsonb) returns text language sql as $$
    select string_agg(format('%s %s/%s', d ->> 'date', d ->> 'minutes', d ->> 'sessions'), ', ' order by o)
    from jsonb_array_elements(body -> 'days') with ordinality x(d, o)
$$;

-- kim in Tokyo. Sunday 2026-11-29 and Monday 2026-11-30 local:
-- 2026-11-28 23:50 UTC is Sunday 08:50 in Tokyo (the local day spans UTC midnight: it began
-- on Saturday 15:00 UTC); 2026-11-29 14:59:59 UTC is Sunday 23:59:59; 15:00:00 UTC is Monday 00:00.
select test.session('kim', '2026-11-28 23:50:00+00', 20);
select test.session('kim', '2026-11-29 14:59:59+00', 30);
select test.session('kim', '2026-11-29 15:20:00+00', 15);
select test.session('kim', '2026-11-28 14:59:00+00', 10);  -- Saturday 23:59 in Tokyo
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, abandoned)
values (gen_random_uuid(), test.uid('kim'), 'live', '2026-11-29 10:00+00', '2026-11-29 10:05+00',
        tstzrange('2026-11-29 10:00+00', '2026-11-29 10:05+00'), 0, true);  -- abandoned on Sunday: not counted

select is(pg_temp.days(pg_temp.daily('kim', '{"from": "2026-11-27", "to": "2026-12-01"}')),
          '2026-11-27 0/0, 2026-11-28 10/1, 2026-11-29 50/2, 2026-11-30 15/1, 2026-12-01 0/0',
          'per Tokyo day: Saturday 23:59, Sunday from 08:50 (UTC Saturday) to 23:59:59, Monday 00:20; empty days as zeros');
select is(pg_temp.daily('kim', '{"from": "2026-11-27", "to": "2026-12-01"}') - 'days',
          '{"time_zone": "Asia/Tokyo", "from": "2026-11-27", "to": "2026-12-01", "total_minutes": 75, "total_sessions": 4}'::jsonb,
          'the answer names the zone, the range and its totals; an abandoned session counts nowhere');
select is(pg_temp.days(pg_temp.daily('kim', '{"from": "2026-11-29", "to": "2026-11-29"}')), '2026-11-29 50/2',
          'a one-day range is one day');
select is(pg_temp.daily('kim', '{"from": "2026-11-30", "to": "2026-11-30"}') -> 'total_minutes', '15'::jsonb,
          'Monday (the week''s first day) holds only what ended after local midnight');

-- The same sessions in UTC: the days move with the zone.
select api.me_update(test.token('kim'), '{}', '{"settings": {"time_zone": "UTC"}}');
select is(pg_temp.days(pg_temp.daily('kim', '{"from": "2026-11-28", "to": "2026-11-29"}')), '2026-11-28 30/2, 2026-11-29 45/2',
          'in UTC the same sessions fall on Saturday and Sunday');

-- ada in Berlin: 2026-03-29 is 23 hours long (02:00 becomes 03:00); 21:59 UTC is 23:59 local.
select test.session('ada', '2026-03-28 22:40:00+00', 10);  -- Saturday 23:40 local (UTC+1)
select test.session('ada', '2026-03-28 23:01:00+00', 20);  -- Sunday 00:01 local
select test.session('ada', '2026-03-29 21:59:00+00', 25);  -- Sunday 23:59 local (UTC+2)
select test.session('ada', '2026-03-29 22:06:00+00', 5);   -- Monday 00:06 local
select is(pg_temp.days(pg_temp.daily('ada', '{"from": "2026-03-28", "to": "2026-03-30"}')),
          '2026-03-28 10/1, 2026-03-29 45/2, 2026-03-30 5/1', 'a 23-hour local day holds what ended in its 23 hours');

-- The default: the last 7 local days up to today, with what ended today in it.
select test.session('ted', test.day_start(), 12);
select is(jsonb_array_length(pg_temp.daily('ted', '{}') -> 'days'), 7, 'no range: 7 days');
select is((pg_temp.daily('ted', '{}') ->> 'to')::date, api.local_date('UTC', now()), '... ending today');
select is(pg_temp.daily('ted', '{}') -> 'days' -> 6 -> 'minutes', '12'::jsonb, '... today holding what ended at its midnight');
select is(jsonb_array_length(pg_temp.daily('ted', '{"from": "2025-12-01", "to": "2026-12-01"}') -> 'days'), 366,
          '366 days is the longest range');

-- Refusals.
select is(test.error_of($$ select api.me_stats_daily_get(test.token('ted'), '{"from": "2025-11-30", "to": "2026-12-01"}', '{}') $$),
          'PT400 invalid_date_range', '367 days is 400 invalid_date_range');
select is(test.error_of($$ select api.me_stats_daily_get(test.token('ted'), '{"from": "2026-12-02", "to": "2026-12-01"}', '{}') $$),
          'PT400 invalid_date_range', 'from after to is 400 invalid_date_range');
select is(test.error_of($$ select api.me_stats_daily_get(test.token('ted'), '{"from": "2026-02-30"}', '{}') $$),
          'PT400 invalid_field', 'February 30 is 400 invalid_field');
select is(test.error_of($$ select api.me_stats_daily_get(test.token('ted'), '{"to": "2026-12-01T00:00:00Z"}', '{}') $$),
          'PT400 invalid_field', 'a time, not a date, is 400 invalid_field');
select is(test.error_of($$ select api.me_stats_daily_get(test.token('ted'), '{"from": "12/01/2026"}', '{}') $$),
          'PT400 invalid_field', 'another date format is 400 invalid_field');
select is(test.error_of($$ select api.me_stats_daily_get('nope', '{}', '{}') $$), 'PT401 unauthorized', 'an unknown token is 401');

select * from finish();
rollback;
