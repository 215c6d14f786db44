-- The rank histogram (migration 0013: app.daily_minutes_counts / app.weekly_minutes_counts)
-- always equals the minutes rollup counted, after sessions arrive (on both sides of a UTC
-- midnight and of a week's start, in three time zones), change, are deleted, after a change of
-- time zone and an account's deletion; and the global board's `me` is 1 + the users strictly
-- above the caller (ties share a rank), also for a caller with nothing in the period.
begin;
-- The counts of 0013 are kept at commit; this file reads them in its own transaction.
set constraints all immediate;
select plan(13);
select test.new_user(name) from unnest(array['ada', 'bo', 'cy', 'di', 'ed']) as name;
update app.users set time_zone = 'Asia/Tokyo' where id = test.uid('bo');
update app.users set time_zone = 'America/New_York' where id = test.uid('cy');

-- The histogram's rows that differ from a recount of the rollup (none when it is right).
create function pg_temp.wrong() returns bigint language sql as $$
    select count(*) from report.counter_reconciliation r
    where r.counter in ('daily_minutes', 'weekly_minutes', 'daily_minutes_counts', 'weekly_minutes_counts')
$$;
-- A caller's global rank in the period, as the board answers it, and as rank() over the rollup.
create function pg_temp.board_rank(name text, period text) returns integer language sql as $$
    select ((api.leaderboards_get(test.token(name), jsonb_build_object('period', period, 'scope', 'global'), '{}')).body #>> '{me,rank}')::integer
$$;
create function pg_temp.recount_rank(name text, period text) returns integer language sql as $$
    with mine as (
        select (now() at time zone u.time_zone)::date as day, date_trunc('week', now() at time zone u.time_zone)::date as week
        from app.users u where u.id = test.uid(name)
    ), board as (
        select d.user_id, d.minutes from app.daily_minutes d, mine where period = 'daily' and d.day = mine.day
        union all
        select w.user_id, w.minutes from app.weekly_minutes w, mine where period = 'weekly' and w.week = mine.week
    )
    select 1 + count(*)::integer from board b
    where b.minutes > coalesce((select b2.minutes from board b2 where b2.user_id = test.uid(name)), 0)
$$;
create function pg_temp.ranks_right() returns boolean language sql as $$
    select bool_and(pg_temp.board_rank(n, p) = pg_temp.recount_rank(n, p))
    from unnest(array['ada', 'bo', 'cy', 'di', 'ed']) n, unnest(array['daily', 'weekly']) p
    where (select u.deleted_at from app.users u where u.id = test.uid(n)) is null
$$;

-- Sessions on both sides of today's UTC midnight and of this week's start (local days differ
-- by zone: the same instants fall on other dates in Tokyo and New York).
-- (Day and week may start at the same instant, as on a Monday: no user has two sessions that
-- would then overlap.)
select test.session('ada', test.day_start(), 30), test.session('ada', test.day_start() - interval '1 hour', 20),
       test.session('bo', test.day_start(), 30), test.session('ed', test.week_start() - interval '1 minute', 15),
       test.session('cy', test.week_start(), 30), test.session('cy', test.day_start(3) - interval '2 hours', 45),
       test.session('di', test.day_start(), 30);
select is(pg_temp.wrong(), 0::bigint, 'recorded sessions are counted in the histogram by day and week');
select ok(pg_temp.ranks_right(), 'every caller''s global rank, daily and weekly, is 1 + the users above them');
select is(pg_temp.board_rank('ed', 'daily'), pg_temp.recount_rank('ed', 'daily'),
          'a caller with nothing today ranks after everyone who focused');
select ok(pg_temp.board_rank('ed', 'daily') > 1, '... which is below at least one user here');

select is(pg_temp.board_rank('ada', 'daily'), pg_temp.board_rank('di', 'daily'), 'ada and di, tied today, share a rank');

update app.focus_sessions set minutes = 50, ended_at = started_at + interval '50 minutes',
       occupies = tstzrange(started_at, started_at + interval '50 minutes')
where user_id = test.uid('di');
select is(pg_temp.wrong(), 0::bigint, 'a session whose minutes change moves its user to the new count');
select ok(pg_temp.ranks_right(), 'ranks stay 1 + the users above after the change');

-- Through the api: an upload adds to an existing day's row (an update of the rollup).
select api.focus_sessions_create(test.token('ada'), '{}', jsonb_build_object(
    'id', gen_random_uuid(), 'started_at', api.iso(test.day_start(1) + interval '9 hours'),
    'ended_at', api.iso(test.day_start(1) + interval '9 hours 25 minutes')));
select is(pg_temp.wrong(), 0::bigint, 'an uploaded session is counted');

delete from app.focus_sessions where user_id = test.uid('bo') and ended_at = test.day_start();
select is(pg_temp.wrong(), 0::bigint, 'a deleted session leaves its user''s count (or moves it down)');

select api.me_update(test.token('cy'), '{}', '{"settings": {"time_zone": "Pacific/Kiritimati"}}');
select is(pg_temp.wrong(), 0::bigint, 'a change of time zone moves the user''s counts to the days of the new zone');

select api.me_delete(test.token('ada'), '{}', '{"password": "correct horse"}');
select is(pg_temp.wrong(), 0::bigint, 'a deleted account leaves every count');
select ok(pg_temp.ranks_right(), 'ranks are right after the deletion');

select is((select count(*)::integer from app.daily_minutes_counts c where c.users < 0), 0, 'no count is negative');

select * from finish();
rollback;
