-- The minutes rollup (migration 0012) always equals the sessions grouped by each user's local day
-- and week: after sessions are recorded, finished, changed and deleted, after a change of time
-- zone, and it drops a deleted account.
begin;
select plan(6);
select test.new_user(name) from unnest(array['ria', 'sol']) as name;

-- What the rollup should hold, computed from the sessions.
create function pg_temp.expected() returns table (user_id uuid, day date, week date, minutes bigint) language sql as $$
    select s.user_id, (s.ended_at at time zone u.time_zone)::date, null::date, sum(s.minutes)
    from (select * from app.focus_sessions union all select * from app.focus_sessions_archived) s  -- live and archived (0055)
    join app.users u on u.id = s.user_id
    where u.deleted_at is null and s.minutes > 0 group by 1, 2
    union all
    select s.user_id, null, date_trunc('week', s.ended_at at time zone u.time_zone)::date, sum(s.minutes)
    from (select * from app.focus_sessions union all select * from app.focus_sessions_archived) s  -- live and archived (0055)
    join app.users u on u.id = s.user_id
    where u.deleted_at is null and s.minutes > 0 group by 1, 3
$$;
create function pg_temp.actual() returns table (user_id uuid, day date, week date, minutes bigint) language sql as $$
    select d.user_id, d.day, null::date, d.minutes::bigint from app.daily_minutes d
    union all
    select w.user_id, null, w.week, w.minutes::bigint from app.weekly_minutes w
$$;
create function pg_temp.same() returns boolean language sql as $$
    select not exists (select * from pg_temp.expected() except select * from pg_temp.actual())
       and not exists (select * from pg_temp.actual() except select * from pg_temp.expected())
       and exists (select from app.focus_sessions s join app.users u on u.id = s.user_id where u.deleted_at is null)
$$;

select test.session('ria', test.day_start(), 30), test.session('ria', test.day_start() - interval '1 hour', 20),
       test.session('ria', test.day_start(8), 15), test.session('sol', test.day_start(), 45);
select ok(pg_temp.same(), 'recorded sessions are in the rollup, by day and by week');

update app.focus_sessions s set minutes = 10, ended_at = s.started_at + interval '10 minutes',
       occupies = tstzrange(s.started_at, s.started_at + interval '10 minutes')
where s.user_id = test.uid('sol');
select ok(pg_temp.same(), 'a session whose minutes change moves the rollup with it');

delete from app.focus_sessions s where s.user_id = test.uid('ria') and s.minutes = 20;
select ok(pg_temp.same(), 'a deleted session leaves the rollup');
select is((select count(*)::integer from app.daily_minutes d where d.user_id = test.uid('ria')), 2,
          'a day left with no minutes has no row');

select api.me_update(test.token('ria'), '{}', '{"settings": {"time_zone": "Pacific/Kiritimati"}}');
select ok(pg_temp.same(), 'a change of time zone rebuilds the user''s rows in the new zone');

select api.me_delete(test.token('sol'), '{}', '{"password": "correct horse"}');
select is((select count(*)::integer from app.daily_minutes d where d.user_id = test.uid('sol')), 0,
          'a deleted account has no rows: it leaves every board');

select * from finish();
rollback;
