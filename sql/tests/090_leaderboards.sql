-- Leaderboards: the period is the current UTC day or ISO week, sessions count by their end,
-- ties share a rank, friends or global scope, me outside the top.
-- Sessions end exactly on a boundary (at test.day_start() or test.week_start()) or a second
-- before one, so each counts for the same periods whenever the suite runs: at 00:00:03 on a
-- Monday the day and the week both began three seconds ago.
begin;
-- The counts of 0013 are kept at commit; this file reads them in its own transaction.
set constraints all immediate;
select plan(14);
select test.new_user(name) from unnest(array['amy', 'bob', 'cyd', 'dan', 'eve', 'fay']) as name;
select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'))
from (values ('amy', 'bob'), ('bob', 'amy'), ('eve', 'fay'), ('fay', 'eve')) v(a, b);  -- asking back accepts
-- Today (ending at 00:00 UTC today): amy 30, bob 30, cyd 50.
select test.session(name, test.day_start(), minutes) from (values ('amy', 30), ('bob', 30), ('cyd', 50)) v(name, minutes);
-- dan 90 ending a second before today began (yesterday: this week, except on a Monday).
select test.session('dan', test.day_start() - interval '1 second', 90);
-- fay 20 ending at Monday 00:00 UTC (this week); eve 45 ending a second before it (last week).
select test.session('fay', test.week_start(), 20);
select test.session('eve', test.week_start() - interval '1 second', 45);
-- An entry as [name, minutes, rank], to compare whole boards.
create function pg_temp.board(token text, params jsonb) returns jsonb language sql as $$
    select jsonb_agg(jsonb_build_array(e -> 'user' ->> 'display_name', e -> 'minutes', e -> 'rank'))
    from jsonb_array_elements((api.leaderboards_get(token, params, '{}')).body -> 'entries') e
$$;

select is((api.leaderboards_get(test.token('amy'), '{"period": "daily", "scope": "friends"}', '{}')).body -> 'entries' -> 0 -> 'rank',
          '1'::jsonb, 'among friends amy and bob tie for first');
select is((api.leaderboards_get(test.token('amy'), '{"period": "daily", "scope": "friends"}', '{}')).body -> 'entries' -> 1 -> 'rank',
          '1'::jsonb, '... sharing the rank');
select is(pg_temp.board(test.token('amy'), '{"period": "daily", "scope": "friends"}'), '[["Amy", 30, 1], ["Bob", 30, 1]]'::jsonb,
          'the friends board is amy and her friend bob with 30 minutes each; cyd is no friend');
select is(pg_temp.board(test.token('amy'), '{"period": "daily"}'), pg_temp.board(test.token('amy'), '{"period": "daily", "scope": "friends"}'),
          'scope defaults to friends');
select is((api.leaderboards_get(test.token('amy'), '{"period": "daily"}', '{}')).body ->> 'period_start', api.iso(test.day_start()),
          'the daily board starts at 00:00 UTC today');
select is(pg_temp.board(test.token('amy'), '{"period": "daily", "scope": "global", "limit": "1"}'), '[["Cyd", 50, 1]]'::jsonb,
          'globally cyd leads the day with 50: dan''s 90 minutes that ended a second before today do not count');
select is((api.leaderboards_get(test.token('amy'), '{"period": "daily", "scope": "global"}', '{}')).body -> 'me', '{"rank": 2, "minutes": 30}'::jsonb,
          '... and amy is second with 30, tied with bob');

select is((api.leaderboards_get(test.token('eve'), '{"period": "weekly"}', '{}')).body ->> 'period_start', api.iso(test.week_start()),
          'the weekly board starts at Monday 00:00 UTC');
select is(pg_temp.board(test.token('eve'), '{"period": "weekly", "scope": "friends"}'), '[["Fay", 20, 1], ["Eve", 0, 2]]'::jsonb,
          'a session ending at the week''s start counts for the week (fay), one ending a second before does not (eve)');
select ok(((api.leaderboards_get(test.token('eve'), '{"period": "weekly", "scope": "global", "limit": "1"}', '{}')).body -> 'me' ->> 'rank')::integer
          > 1, 'eve, with no minutes, still gets her own rank outside a top of 1');
select is(jsonb_array_length((api.leaderboards_get(test.token('eve'), '{"period": "weekly", "scope": "global", "limit": "1"}', '{}')).body -> 'entries'),
          1, 'limit limits the entries');
select is((select b -> -1 from pg_temp.board(test.token('eve'), '{"period": "weekly", "scope": "global"}') b),
          jsonb_build_array('Eve', 0, jsonb_array_length(pg_temp.board(test.token('eve'), '{"period": "weekly", "scope": "global"}'))),
          'fewer users focused this week than the limit: the global board lists them all and eve, with nothing, last');
select is(test.error_of($$ select api.leaderboards_get(test.token('eve'), '{"period": "yearly"}', '{}') $$),
          'PT400 invalid_field', 'an unknown period is invalid_field');
select is(test.error_of($$ select api.leaderboards_get(test.token('eve'), '{"period": "daily", "limit": "0"}', '{}') $$),
          'PT400 invalid_field', 'a limit outside 1 to 100 is invalid_field');

select * from finish();
rollback;
