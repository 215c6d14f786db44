-- The global board's top when more users tie at its edge than fit (migration 0014): exactly
-- `limit` entries, the tied users with the lowest ids (the cut is by user id, not by name), all
-- sharing the rank; `me` right for a caller inside the tie but outside the cut, below it, and
-- with nothing; and the top is an index read of `limit` rows, never a sort of the tie.
-- 3,000 users tie at 40 minutes today and this week, their rollup rows written straight in for
-- the caller's period (the UTC date of test.day_start(), the Monday of test.week_start());
-- their ids run against their names, so the lowest ids are the names last in the alphabet.
begin;
-- The counts of 0013 are kept at commit; this file reads them in its own transaction.
set constraints all immediate;
select plan(15);
select test.new_user(name) from unnest(array['zoe', 'una']) as name;  -- zoe: nothing in the period
select test.session('una', test.day_start(), 10);  -- una: 10 minutes today and this week, below the tie

-- Tie n has id ...-0000000f-(10000 - n): Tie 3000 has the lowest id, Tie 1 the highest.
create temp table tie as
select n, format('00000000-0000-4000-8000-%s', lpad(to_hex(10000 - n), 12, '0'))::uuid as id, format('Tie %s', n) as name
from generate_series(1, 3000) n;
insert into app.users (id, email, password_hash, display_name)
select t.id, format('tie%s@example.com', t.n), '$2a$04$tie', t.name from tie t;
insert into app.daily_minutes (user_id, day, minutes)
select t.id, (test.day_start() at time zone 'UTC')::date, 40 from tie t;
insert into app.weekly_minutes (user_id, week, minutes)
select t.id, (test.week_start() at time zone 'UTC')::date, 40 from tie t;
analyze app.users;
analyze app.daily_minutes;
analyze app.weekly_minutes;

-- A board's entries as [user id, rank, minutes] and as display names, in the answer's order.
create function pg_temp.entries(name text, params jsonb) returns jsonb language sql as $$
    select (api.leaderboards_get(test.token(name), params, '{}')).body -> 'entries'
$$;
create function pg_temp.ids(entries jsonb) returns uuid[] language sql as $$
    select array_agg((e #>> '{user,id}')::uuid order by (e #>> '{user,id}')::uuid) from jsonb_array_elements(entries) e
$$;
create function pg_temp.lowest_tie_ids(size integer) returns uuid[] language sql as $$
    select array_agg(t.id order by t.id) from (select t.id from tie t order by t.id limit size) t
$$;

select is(jsonb_array_length(pg_temp.entries('zoe', '{"period": "daily", "scope": "global"}')), 10,
          'with 3,000 users tied at the top of the day, the global board returns exactly limit (10) entries');
select is((select array_agg(distinct e -> 'rank') from jsonb_array_elements(pg_temp.entries('zoe', '{"period": "daily", "scope": "global"}')) e),
          array['1'::jsonb], '... all ranked 1 (ties share a rank)');
select is((select array_agg(distinct e -> 'minutes') from jsonb_array_elements(pg_temp.entries('zoe', '{"period": "daily", "scope": "global"}')) e),
          array['40'::jsonb], '... with the tie''s 40 minutes');
select is(pg_temp.ids(pg_temp.entries('zoe', '{"period": "daily", "scope": "global"}')), pg_temp.lowest_tie_ids(10),
          '... and they are the tied users with the 10 lowest user ids, not the first names in the alphabet');
select is((select array_agg(e #>> '{user,display_name}' order by o) from jsonb_array_elements(pg_temp.entries('zoe', '{"period": "daily", "scope": "global"}')) with ordinality x(e, o)),
          array['Tie 2991', 'Tie 2992', 'Tie 2993', 'Tie 2994', 'Tie 2995', 'Tie 2996', 'Tie 2997', 'Tie 2998', 'Tie 2999', 'Tie 3000'],
          'within the returned entries, equal ranks are listed by display name');
select is(pg_temp.ids(pg_temp.entries('zoe', '{"period": "daily", "scope": "global", "limit": "100"}')), pg_temp.lowest_tie_ids(100),
          'a limit of 100 cuts the same tie at the 100 lowest ids');

select is((api.leaderboards_get(test.token('zoe'), '{"period": "daily", "scope": "global"}', '{}')).body -> 'me',
          '{"rank": 3002, "minutes": 0}'::jsonb, 'a caller with nothing today is ranked after the 3,000 tied and una: 3,002');
select is((api.leaderboards_get(test.token('una'), '{"period": "daily", "scope": "global"}', '{}')).body -> 'me',
          '{"rank": 3001, "minutes": 10}'::jsonb, 'una with 10 minutes, below the tie, is ranked 3,001');
select is((api.leaderboards_get(test.token('una'), '{"period": "daily", "scope": "global", "limit": "1"}', '{}')).body -> 'entries' -> 0 -> 'user' ->> 'id',
          (select t.id::text from tie t order by t.id limit 1), 'a limit of 1 is the tied user with the lowest id');

select is(pg_temp.ids(pg_temp.entries('zoe', '{"period": "weekly", "scope": "global"}')), pg_temp.lowest_tie_ids(10),
          'the weekly board cuts its tie the same way: the 10 lowest ids');
select is((api.leaderboards_get(test.token('zoe'), '{"period": "weekly", "scope": "global"}', '{}')).body -> 'me',
          '{"rank": 3002, "minutes": 0}'::jsonb, '... and ranks the caller with nothing this week 3,002');

-- The plans: the first rows of the index (day, minutes desc, user_id) in its order, each probed
-- in app.users for deleted accounts (and in app.suspensions and app.blocks for users hidden
-- from the viewer), stopped at the limit. (The other period's branch is planned
-- too, as a Sort over nothing: its one-time filter is false, so it reads no row.)
select ok(p.plan ~ format('Index (Only )?Scan using %s_minutes_top on %s_minutes \w+ \(actual rows=10 loops=1\)', v.table_prefix, v.table_prefix)
          and p.plan ~ 'Limit \(actual rows=10 loops=1\)' and p.plan !~ 'Sort \(actual rows=[1-9]',
          format('the %s top reads 10 rows of %s_minutes_top in index order (a Limit, no Sort of the rows) out of 3,000 tied', v.period, v.table_prefix))
from (values ('daily', 'daily', (test.day_start() at time zone 'UTC')::date), ('weekly', 'weekly', (test.week_start() at time zone 'UTC')::date))
     as v (period, table_prefix, key)
cross join lateral (select test.plan_of(format('select * from api.board_top(%L, %L, 10, %L)', v.period, v.key, test.uid('zoe')),
                                        'analyze, costs off, timing off, summary off') as plan) p;

-- A deleted account has no rollup rows (0012); one left over (written here after the deletion)
-- is still left out, and the top still has 10 entries.
update app.users set deleted_at = now(), email = null, password_hash = null, display_name = 'Deleted user'
where id = (select t.id from tie t order by t.id limit 1);
select is((select count(*) from app.daily_minutes d where d.user_id = (select t.id from tie t order by t.id limit 1)), 0::bigint,
          'deleting an account removes its rollup rows');
insert into app.daily_minutes (user_id, day, minutes)
select t.id, (test.day_start() at time zone 'UTC')::date, 40 from tie t order by t.id limit 1;
select is(pg_temp.ids(pg_temp.entries('zoe', '{"period": "daily", "scope": "global"}')),
          (select array_agg(t.id order by t.id) from (select t.id from tie t order by t.id offset 1 limit 10) t),
          'a deleted account''s row left in the rollup is skipped: the next 10 lowest ids');

select * from finish();
rollback;
