-- GET /focus-sessions in pages: newest first (started_at, then id, both descending), `limit`
-- rows, next_cursor null on the last page, the totals of the whole range on every page, a
-- session recorded between pages (older than the cursor) found on a later page, and a cursor
-- the list did not give is 400 invalid_cursor.
begin;
select plan(9);
select test.new_user('sam');
-- Five sessions around this week's start (Monday 00:00 UTC). One person's sessions never overlap,
-- so two never start at the same moment; the id only keeps the order total.
select test.session('sam', test.week_start() + make_interval(mins => m), 10)
from unnest(array[-30, -15, 5, 20, 40]) m;
create function pg_temp.page(params jsonb) returns jsonb language sql as $$
    select (api.focus_sessions_list(test.token('sam'), params || jsonb_build_object('from', api.iso(test.week_start(1))), '{}')).body
$$;
create function pg_temp.ids(page jsonb) returns uuid[] language sql as $$
    select coalesce(array_agg((s ->> 'id')::uuid order by o), '{}') from jsonb_array_elements(page -> 'sessions') with ordinality x(s, o)
$$;
create temporary table expected on commit drop as
select array_agg(s.id order by s.started_at desc, s.id desc) as ids from app.focus_sessions s where s.user_id = test.uid('sam');

select is(pg_temp.ids(pg_temp.page('{}')), (select ids from expected), 'no limit: every session of the range, newest first');
select is(pg_temp.page('{}') -> 'next_cursor', 'null'::jsonb, '... in one page');
select is(pg_temp.ids(pg_temp.page('{"limit": "2"}')), (select ids[1:2] from expected), 'limit=2: the newest two');
select is(pg_temp.ids(pg_temp.page(jsonb_build_object('limit', '2', 'cursor', pg_temp.page('{"limit": "2"}') ->> 'next_cursor'))),
          (select ids[3:4] from expected), 'the next page: the two before them, across the week''s start');
select is((select array_agg(p ->> 'total_minutes') from (select pg_temp.page('{"limit": "2"}') p union all
               select pg_temp.page(jsonb_build_object('limit', '2', 'cursor', pg_temp.page('{"limit": "2"}') ->> 'next_cursor'))) x),
          array['50', '50'], 'every page answers the totals of the whole range');
select is(pg_temp.page('{"limit": "5"}') -> 'next_cursor', 'null'::jsonb, 'a page that ends the list exactly has no next_cursor');

-- An older session uploaded between pages appears on a later page; the newer ones do not repeat.
create temporary table first_page on commit drop as select pg_temp.page('{"limit": "2"}') as body;
select test.session('sam', test.week_start() - interval '2 hours', 10, '00000000-0000-4000-8000-000000000001');
select is(pg_temp.ids(pg_temp.page(jsonb_build_object('limit', '10', 'cursor', (select body ->> 'next_cursor' from first_page)))),
          (select ids[3:5] from expected) || '00000000-0000-4000-8000-000000000001'::uuid,
          'a session recorded meanwhile, older than the cursor, is on the next page; none repeats');

select is(test.error_of($$ select api.focus_sessions_list(test.token('sam'), '{"cursor": "WyJzZXNzaW9ucyJd"}', '{}') $$),
          'PT400 invalid_cursor', 'a cursor of this list''s name without a key is 400 invalid_cursor');
select is(test.error_of($$ select api.focus_sessions_list(test.token('sam'), '{"limit": "501"}', '{}') $$), 'PT400 invalid_field',
          'limit past 500 is 400 invalid_field');

select * from finish();
rollback;
