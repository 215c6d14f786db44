-- The daily goal (PATCH /me daily_goal_minutes, GET /me/stats): a whole number of minutes from
-- 1 to 1440 or none (null clears it), on the caller's Profile only (not on a friend's island),
-- set against today's minutes of the caller's own day in the stats, exported with the Profile
-- and reset by erasure. Refusals change nothing. Days from the UTC calendar's boundaries.
begin;
select plan(16);
select test.new_user('goa');
select test.new_user('gob');
select api.friend_requests_create(test.token('goa'), '{}', '{"email": "gob@example.com"}');
select api.friend_requests_create(test.token('gob'), '{}', '{"email": "goa@example.com"}');

create function pg_temp.set_goal(goal jsonb) returns text language sql as $$
    select test.error_of(format($q$ select api.me_update(%L, '{}', %L) $q$, test.token('goa'),
                                jsonb_build_object('daily_goal_minutes', goal)))
$$;
create function pg_temp.stats() returns jsonb language sql as $$
    select (api.me_stats_get(test.token('goa'), '{}', '{}')).body
$$;
create function pg_temp.stored() returns integer language sql as $$
    select daily_goal_minutes from app.users where id = test.uid('goa')
$$;

select is((api.me_get(test.token('goa'), '{}', '{}')).body -> 'daily_goal_minutes', 'null'::jsonb, 'no goal at first: null');
select is(pg_temp.stats() -> 'daily_goal_reached', 'null'::jsonb, '... and the stats reach none');

select is(pg_temp.set_goal('45'), 'ok', 'a goal of 45 minutes is set');
select is(pg_temp.stored(), 45, '... and stored');
select is((api.me_get(test.token('goa'), '{}', '{}')).body -> 'daily_goal_minutes', '45'::jsonb, '... and on the Profile');
select ok(not ((api.users_get(test.token('gob'), jsonb_build_object('id', test.uid('goa')), '{}')).body ? 'daily_goal_minutes'),
          'a friend does not see it');

-- Today (UTC: the account's time zone) 30 minutes, yesterday's last minute 60 more that do not count.
select test.session('goa', date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' + interval '30 minutes', 30);
select test.session('goa', date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - interval '1 minute', 60);
select is(jsonb_build_array(pg_temp.stats() -> 'today_minutes', pg_temp.stats() -> 'daily_goal_minutes', pg_temp.stats() -> 'daily_goal_reached'),
          '[30, 45, false]'::jsonb, 'the stats: 30 of today''s minutes against 45, not reached (yesterday''s do not count)');
select test.session('goa', date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' + interval '60 minutes', 15);
select is(pg_temp.stats() ->> 'daily_goal_reached', 'true', '15 more: 45 of 45, reached');

-- Refusals: the goal stays 45.
select is(pg_temp.set_goal('0'), 'PT400 invalid_field', '0 minutes is refused');
select is(pg_temp.set_goal('1441'), 'PT400 invalid_field', 'more than a day is refused');
select is(pg_temp.set_goal('12.5'), 'PT400 invalid_field', 'a fraction is refused');
select is(pg_temp.set_goal('"45"'), 'PT400 invalid_field', 'a string is refused');
select is(pg_temp.stored(), 45, '... none of them changed it');
select is(test.error_of($$ update app.users set daily_goal_minutes = 0 where email = 'goa@example.com' $$), '23514',
          'the table refuses what the endpoint refuses');

select is((api.me_export_get(test.token('goa'), '{}', '{}')).body #> '{profile,daily_goal_minutes}', '45'::jsonb,
          'the export carries it with the Profile');

select api.me_delete(test.token('goa'), '{}', '{"password": "correct horse"}');
select is(pg_temp.stored(), null, 'erasure resets it');

select * from finish();
rollback;
