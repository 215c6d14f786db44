-- Streak freezes covering missed local days, applied lazily (on reading the streak, on a
-- session's end), with no nightly job. Fixtures are built from each person's own day starts
-- and from the last Sunday before today, so every clock the suite runs at (Sunday 23:58 and
-- 23:59:59, Monday 00:00:03, Wednesday 15:00) sees the same rules: at Monday 00:00:03 the UTC
-- person's Sunday has just been missed and is covered across midnight; at Sunday 23:59:59 it
-- is still today and nothing is used yet.
begin;
select plan(29);
select test.new_user(name) from unnest(array['sunday', 'tonight', 'kiri', 'pago', 'late', 'edge', 'gap', 'two', 'none']) as name;
select api.me_update(test.token('kiri'), '{}', '{"settings": {"time_zone": "Pacific/Kiritimati"}}');
select api.me_update(test.token('pago'), '{}', '{"settings": {"time_zone": "Pacific/Pago_Pago"}}');
select test.new_events();
-- A held freeze bought at `at` (the purchase itself is 130_streaks_purchase.sql's).
create function pg_temp.freeze(name text, at timestamptz) returns void language sql as $$
    insert into app.streak_freezes (user_id, slot, price, bought_at)
    values (test.uid(name), coalesce((select 2 from app.streak_freezes where user_id = test.uid(name) and slot = 1), 1), 0, at)
$$;
-- 30 minutes ending at noon of `days_ago` in the person's zone (today: by now at the latest).
create function pg_temp.focus(name text, zone text, days_ago integer) returns uuid language sql as $$
    select test.session(name, least(test.local_day_start(zone, days_ago) + interval '12 hours', now()), 30)
$$;
create function pg_temp.stats(name text) returns jsonb language sql as $$ select (api.me_stats_get(test.token(name), '{}', '{}')).body $$;
create function pg_temp.covered(name text) returns date[] language sql as $$
    select coalesce(array_agg(covered_day order by covered_day), '{}') from app.streak_freezes
    where user_id = test.uid(name) and covered_day is not null
$$;
-- The last Sunday before today (UTC): yesterday on a Monday, a week ago on a Sunday.
create temporary table cal on commit drop as
select d.today, d.today - extract(isodow from d.today)::integer as sunday
from (select (now() at time zone 'UTC')::date as today) d;

-- Sunday night: focused on Saturday, missed Sunday, a freeze held since Saturday; then every
-- day from Monday to yesterday. The Monday session's end covers Sunday; on a Monday (no such
-- day yet) the read does.
select pg_temp.freeze('sunday', (select sunday - 1 from cal)::timestamp at time zone 'UTC' + interval '8 hours');
select test.session('sunday', (select sunday - 1 from cal)::timestamp at time zone 'UTC' + interval '12 hours', 30);
select test.session('sunday', d::timestamp at time zone 'UTC' + interval '12 hours', 30)
from cal, generate_series(cal.sunday + 1, cal.today - 1, interval '1 day') d;
select is(pg_temp.stats('sunday') -> 'current_streak_days', to_jsonb((select today - sunday from cal)),
          'a freeze covers Sunday: Saturday and each day from Monday to yesterday count, Sunday keeps the streak without adding');
select is(pg_temp.covered('sunday'), array[(select sunday from cal)], 'the freeze covered Sunday, the day it was held for');
select is(pg_temp.stats('sunday') -> 'streak_frozen_days', jsonb_build_array((select sunday from cal)),
          '/me/stats names the covered day in the current streak');
select is(pg_temp.stats('sunday') -> 'streak_freezes_held', '0'::jsonb, '... and no freeze left');
select is((select array_agg(e) from unnest(test.new_events()) e where e like '% streak.%'), array['sunday streak.frozen'],
          'the person hears streak.frozen once');
select is(app.apply_streak_freezes(test.uid('sunday')), 0, 'applying again uses nothing: idempotent');
select is((pg_temp.stats('sunday') - 'streak_freezes_held') ->> 'streak_freezes_used', '1', 'reading again uses nothing either');
select is(test.new_events(), '{}'::text[], '... and tells nobody again');

-- Today is not missed until it ends: at Sunday 23:59:59 nothing is used for Sunday.
select pg_temp.freeze('tonight', test.day_start(2));
select pg_temp.focus('tonight', 'UTC', 1);
select is(pg_temp.stats('tonight') -> 'current_streak_days', '1'::jsonb, 'yesterday''s day keeps the streak current today');
select is(pg_temp.covered('tonight'), '{}'::date[], 'today is not covered while it lasts');

-- Each person's own midnight: yesterday missed in their zone, the freeze bought the day before.
select pg_temp.freeze(name, test.local_day_start(zone, 2) + interval '1 hour'), pg_temp.focus(name, zone, 2)
from (values ('kiri', 'Pacific/Kiritimati'), ('pago', 'Pacific/Pago_Pago')) v(name, zone);
select is(pg_temp.stats('kiri') -> 'current_streak_days', '1'::jsonb, 'a freeze covers their yesterday (Kiritimati, UTC+14)');
select is(pg_temp.covered('kiri'), array[(now() at time zone 'Pacific/Kiritimati')::date - 1], '... their own yesterday');
select is(pg_temp.stats('pago') -> 'current_streak_days', '1'::jsonb, '... and (Pago Pago, UTC-11)');
select is(pg_temp.covered('pago'), array[(now() at time zone 'Pacific/Pago_Pago')::date - 1], '... their own yesterday');

-- A freeze bought after the miss covers nothing: held from the first instant of today (the end
-- of yesterday) is too late for yesterday; one held a microsecond before it is in time.
select pg_temp.focus('late', 'UTC', 2);
select pg_temp.freeze('late', test.day_start(0));
select is(pg_temp.stats('late') -> 'current_streak_days', '0'::jsonb, 'a freeze bought after the missed day ended does not save it');
select is(pg_temp.stats('late') -> 'streak_freezes_held', '1'::jsonb, '... and stays held');
select is(pg_temp.covered('late'), '{}'::date[], '... covering nothing');
select pg_temp.focus('late', 'UTC', 0);
select is(pg_temp.covered('late'), '{}'::date[], 'a session today does not make it cover the old gap either');
select pg_temp.focus('edge', 'UTC', 2);
select pg_temp.freeze('edge', test.day_start(0) - interval '1 microsecond');
select is(pg_temp.stats('edge') -> 'current_streak_days', '1'::jsonb, 'a freeze held before the day ended covers it');

-- Two missed days take two freezes and the streak is kept; a third breaks it after using both,
-- as night by night it would have.
select pg_temp.freeze('two', test.day_start(4));
select pg_temp.freeze('two', test.day_start(4));
select pg_temp.focus('two', 'UTC', 3);
select is(pg_temp.stats('two') -> 'current_streak_days', '1'::jsonb, 'two freezes bridge two missed days: the streak is kept, not lengthened');
select is(pg_temp.covered('two'), array[(select today - 2 from cal), (select today - 1 from cal)], '... one freeze per day');
select pg_temp.focus('two', 'UTC', 0);
select is(pg_temp.stats('two') -> 'current_streak_days', '2'::jsonb, 'focusing today lengthens the kept streak');
select is(pg_temp.stats('two') -> 'longest_streak_days', '2'::jsonb, '... which is also the longest');
select pg_temp.freeze('gap', test.day_start(5));
select pg_temp.freeze('gap', test.day_start(5));
select pg_temp.focus('gap', 'UTC', 4);
select is(pg_temp.stats('gap') -> 'current_streak_days', '0'::jsonb, 'three missed days with two freezes break the streak');
select is(pg_temp.covered('gap'), array[(select today - 3 from cal), (select today - 2 from cal)],
          '... after the two freezes covered the first two');
select is(pg_temp.stats('gap') -> 'streak_frozen_days', '[]'::jsonb, 'a broken streak shows no frozen days');

-- Without a freeze nothing changes; a freeze with no streak before the gap covers nothing.
select pg_temp.freeze('none', test.day_start(3));
select is(pg_temp.stats('none') - 'streak_freezes_held',
          '{"today_minutes": 0, "daily_goal_minutes": null, "daily_goal_reached": null, "week_minutes": 0, "total_minutes": 0,
            "total_coins_earned": 0, "current_streak_days": 0, "longest_streak_days": 0, "streak_freezes_used": 0,
            "streak_frozen_days": []}'::jsonb,
          'a person who never focused uses no freeze');

-- One freeze per covered day, whatever function writes.
select is(test.error_of(format($$ insert into app.streak_freezes (user_id, price, covered_day, used_at) values (%L, 0, %L, now()) $$,
                               test.uid('sunday'), (select sunday from cal))),
          '23505', 'a second freeze for a covered day violates unique (user_id, covered_day)');
select is((select current_days from app.user_streak(test.uid('two'))), 2, 'app.user_streak answers the same as /me/stats');

select * from finish();
rollback;
