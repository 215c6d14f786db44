-- Local days: each user's today, week, streak, friends' minutes and leaderboard period follow
-- settings.time_zone; limits per day do not: they count api.limit_day, the UTC day (the offline
-- coin cap, 050_focus_sessions_cap.sql; gifts, 130_gifts_limits.sql).
-- Fixtures are built from each user's own day start (test.local_day_start), so they hold at any
-- clock the suite runs at.
begin;
select plan(20);
select test.new_user(name) from unnest(array['kiri', 'pago']) as name;
select api.me_update(test.token('kiri'), '{}', '{"settings": {"time_zone": "Pacific/Kiritimati"}}');
select api.me_update(test.token('pago'), '{}', '{"settings": {"time_zone": "Pacific/Pago_Pago"}}');
select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'))
from (values ('kiri', 'pago'), ('pago', 'kiri')) v(a, b);

select is((api.me_get(test.token('kiri'), '{}', '{}')).body -> 'settings' ->> 'time_zone', 'Pacific/Kiritimati',
          'the time zone is a setting of the Profile');
select is(test.error_of($$ select api.me_update(test.token('kiri'), '{}', '{"settings": {"time_zone": "Mars/Olympus_Mons"}}') $$),
          'PT400 invalid_field', 'an unknown zone is 400');
select is(test.error_of($$ select api.me_update(test.token('kiri'), '{}', '{"settings": {"time_zone": "pacific/kiritimati"}}') $$),
          'PT400 invalid_field', 'a zone must be spelled as pg_timezone_names spells it');
select is((select time_zone from app.users where id = test.uid('kiri')), 'Pacific/Kiritimati', 'refused zones changed nothing');
select is(test.error_of($$ select api.me_update(test.token('kiri'), '{}', '{"settings": {"time_zone": 14}}') $$),
          'PT400 invalid_field', 'a zone is a string');

-- Each: 30 minutes ending at their own day start (today), 20 ending 31 minutes before it (yesterday).
select test.session(name, test.local_day_start(zone), 30), test.session(name, test.local_day_start(zone) - interval '31 minutes', 20)
from (values ('kiri', 'Pacific/Kiritimati'), ('pago', 'Pacific/Pago_Pago')) v(name, zone);
create function pg_temp.stats(name text) returns jsonb language sql as $$ select (api.me_stats_get(test.token(name), '{}', '{}')).body $$;

select is((pg_temp.stats('kiri') ->> 'today_minutes')::integer, 30, 'a user in Pacific/Kiritimati (UTC+14) sees their own today');
select is((pg_temp.stats('pago') ->> 'today_minutes')::integer, 30, 'a user in Pacific/Pago_Pago (UTC-11) sees their own today');
select is((pg_temp.stats('kiri') ->> 'current_streak_days')::integer, 2, 'today and their yesterday make a two-day streak (Kiritimati)');
select is((pg_temp.stats('pago') ->> 'current_streak_days')::integer, 2, '... and (Pago Pago)');
select is((select (f ->> 'today_minutes')::integer from jsonb_array_elements((api.friends_list(test.token('kiri'), '{}', '{}')).body -> 'friends') f),
          30, 'a friend''s minutes today count in the friend''s own day');
select is((api.leaderboards_get(test.token('kiri'), '{"period": "daily"}', '{}')).body ->> 'period_start',
          api.iso(test.local_day_start('Pacific/Kiritimati')), 'the daily leaderboard is the caller''s day (Kiritimati)');
select is((api.leaderboards_get(test.token('pago'), '{"period": "daily"}', '{}')).body ->> 'period_start',
          api.iso(test.local_day_start('Pacific/Pago_Pago')), '... and (Pago Pago)');
select is((api.leaderboards_get(test.token('pago'), '{"period": "daily"}', '{}')).body -> 'me' -> 'minutes', '30'::jsonb,
          '... counting from it');

-- The offline coin cap is per UTC day, not per local day (40 coins a day here): Kiritimati's
-- midnight is 10:00 UTC, so these three end on two local days but one UTC day.
update app.economy_settings set offline_daily_coin_cap = 40;
create function pg_temp.record(ends_at timestamptz) returns integer language sql as $$
    select ((api.focus_sessions_create(test.token('kiri'), '{}', jsonb_build_object(
        'id', gen_random_uuid(), 'started_at', api.iso(ends_at - interval '30 minutes'), 'ended_at', api.iso(ends_at)))).body
        -> 'session' ->> 'coins_earned')::integer
$$;
delete from app.focus_sessions where user_id = test.uid('kiri');
select is(array[pg_temp.record(test.local_day_start('Pacific/Kiritimati')),
                pg_temp.record(test.local_day_start('Pacific/Kiritimati') - interval '31 minutes'),
                pg_temp.record(test.local_day_start('Pacific/Kiritimati') - interval '62 minutes')],
          array[30, 10, 0], 'the offline cap is per UTC day, whatever the zone: 30, the 10 left, then nothing');

-- The helper counts on local wall-clock time: a day that daylight saving makes 25 hours long is one day.
select is(api.local_period_start('Europe/Paris', '2026-10-25 12:00Z', shift => 1) - api.local_period_start('Europe/Paris', '2026-10-25 12:00Z'),
          interval '25 hours', 'the day Paris leaves summer time is one 25-hour day');
select is(api.local_period_start('Pacific/Kiritimati', '2026-12-02 09:00Z', 'week'), '2026-11-29 10:00Z'::timestamptz,
          'a week starts on Monday at 00:00 local time (Kiritimati: Sunday 10:00 UTC)');

-- The limit day: the UTC day of an instant, whatever zone the session reads times in.
set local time zone 'Pacific/Kiritimati';
select is(api.limit_day('2026-12-02 09:00Z'), tstzrange('2026-12-02 00:00Z', '2026-12-03 00:00Z'),
          'a limit day is the UTC day, [00:00 UTC, the next 00:00 UTC), read in any session zone');
select is(api.limit_day('2026-12-02 00:00Z'), api.limit_day('2026-12-02 23:59:59.999999Z'), '... its first and last instants on one day');
select is(api.limit_day_retry_after('2026-12-02 23:59:59.5Z'), 1, 'its Retry-After: whole seconds to the next UTC midnight, at least 1');
select is(api.limit_day_retry_after(test.day_start() + interval '1 hour'), 23 * 3600, '... 23 hours from 01:00 UTC');
reset time zone;

select * from finish();
rollback;
