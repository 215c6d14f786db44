-- report.counter_reconciliation_between(from_day, to_day) checks the counters of those days (and
-- of the weeks that overlap them) and no others: a counter broken on one day is reported for a
-- range holding that day and not for the days after it; a week's counter for any day of its week;
-- a local day 14 hours ahead of UTC is recounted from the sessions of the UTC day before it; and
-- the unbounded view reports what the bounded function reports.
begin;
set constraints all immediate;
select plan(11);
select test.new_user(name) from unnest(array['hal', 'ivy']) as name;
update app.users set time_zone = 'Pacific/Kiritimati' where id = test.uid('ivy');

-- Monday 12:00 UTC two weeks back (hal), and Wednesday 11:00 UTC last week, which is Thursday
-- 01:00 in Kiritimati (ivy) and Wednesday for hal.
select test.session('hal', test.week_start(2) + interval '12 hours', 30);
select test.session('hal', test.week_start(1) + interval '2 days 11 hours', 20);
select test.session('ivy', test.week_start(1) + interval '2 days 11 hours', 25);
select app.grant_coins(test.uid('hal'), 100, 'report test');

create function pg_temp.day(t timestamptz) returns date language sql as $$ select (t at time zone 'UTC')::date $$;
create function pg_temp.wrong(from_day date, to_day date) returns text[] language sql as $$
    select coalesce(array_agg(r.counter order by r.counter), '{}') from report.counter_reconciliation_between(from_day, to_day) r
$$;

select is(pg_temp.wrong('-infinity', 'infinity'), '{}', 'every counter agrees with its recount');
select is(pg_temp.wrong(pg_temp.day(test.week_start(1)) + 3, pg_temp.day(test.week_start(1)) + 3), '{}',
          'the Kiritimati day after a UTC day is recounted from that UTC day''s sessions');

-- A broken rollup row moves its histogram with it (a trigger keeps the counts): both are reported.
update app.daily_minutes set minutes = minutes + 1
where user_id = test.uid('hal') and day = pg_temp.day(test.week_start(2));
select is(pg_temp.wrong(pg_temp.day(test.week_start(2)), pg_temp.day(test.week_start(2))), '{daily_minutes,daily_minutes_counts,daily_minutes_counts}',
          'a day''s broken minutes are reported for that day');
select is(pg_temp.wrong(pg_temp.day(test.week_start(2)) + 1, pg_temp.day(test.week_start(2)) + 3), '{}',
          'and not for the days after it');
select is(pg_temp.wrong(pg_temp.day(test.week_start(2)) - 5, pg_temp.day(test.week_start(2)) + 5), '{daily_minutes,daily_minutes_counts,daily_minutes_counts}',
          'a range around it reports them once');
select is((select array_agg(counter order by counter) from report.counter_reconciliation), '{daily_minutes,daily_minutes_counts,daily_minutes_counts}', 'the view reports it too');
update app.daily_minutes set minutes = minutes - 1
where user_id = test.uid('hal') and day = pg_temp.day(test.week_start(2));

update app.weekly_minutes set minutes = minutes + 1
where user_id = test.uid('hal') and week = pg_temp.day(test.week_start(2));
select is(pg_temp.wrong(pg_temp.day(test.week_start(2)) + 3, pg_temp.day(test.week_start(2)) + 3), '{weekly_minutes,weekly_minutes_counts,weekly_minutes_counts}',
          'a week''s broken minutes are reported for any day of that week');
select is(pg_temp.wrong(pg_temp.day(test.week_start(1)), pg_temp.day(test.week_start(1)) + 6), '{}',
          'and not for the week after it');
update app.weekly_minutes set minutes = minutes - 1
where user_id = test.uid('hal') and week = pg_temp.day(test.week_start(2));

update app.ledger_day_totals set earned = earned + 5 where day = pg_temp.day(now()) and shard = app.counter_shard(test.uid('hal'));
select is(pg_temp.wrong(pg_temp.day(now()), pg_temp.day(now())), '{ledger_day_totals}', 'a UTC day''s broken ledger total is reported for that day');
select is(pg_temp.wrong(pg_temp.day(now()) - 1, pg_temp.day(now()) - 1), '{}', 'and not for the day before');
update app.ledger_day_totals set earned = earned - 5 where day = pg_temp.day(now()) and shard = app.counter_shard(test.uid('hal'));

select is(pg_temp.wrong('-infinity', 'infinity'), '{}', 'mended, every counter agrees again');

select * from finish();
rollback;
