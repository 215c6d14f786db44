-- The blocks list in pages: newest block first (created_at, then the blocked user's id, both
-- descending), `limit` rows, next_cursor null on the last page, a block lifted between pages
-- skips nobody, and a cursor the list did not give is 400 invalid_cursor.
begin;
select plan(7);
select test.new_user(name) from unnest(array['bea', 'b1', 'b2', 'b3', 'b4', 'b5']) as name;
insert into app.blocks (blocker, blocked, created_at)
select test.uid('bea'), test.uid(v.name), test.week_start() + v.shift
from (values ('b1', interval '-1 day'), ('b2', interval '-1 microsecond'), ('b3', interval '0'), ('b4', interval '0'),
             ('b5', interval '1 hour')) v(name, shift);
create temporary table expected on commit drop as
select array_agg(b.blocked order by b.created_at desc, b.blocked desc) as ids from app.blocks b where b.blocker = test.uid('bea');

create function pg_temp.page(params jsonb) returns jsonb language sql as $$
    select (api.me_blocks_list(test.token('bea'), params, '{}')).body
$$;
create function pg_temp.ids(page jsonb) returns uuid[] language sql as $$
    select coalesce(array_agg((b -> 'user' ->> 'id')::uuid order by o), '{}') from jsonb_array_elements(page -> 'blocks') with ordinality x(b, o)
$$;

select is(pg_temp.ids(pg_temp.page('{}')), (select ids from expected),
          'no limit: every block, newest first across the week''s start, ties by the blocked id');
select is(pg_temp.page('{}') -> 'next_cursor', 'null'::jsonb, '... in one page, whose next_cursor is null');
select is(pg_temp.ids(pg_temp.page(jsonb_build_object('limit', '2', 'cursor', pg_temp.page('{"limit": "2"}') ->> 'next_cursor'))),
          (select ids[3:4] from expected), 'the second page of two: the third and fourth');
select is(pg_temp.page(jsonb_build_object('limit', '2', 'cursor', pg_temp.page(jsonb_build_object('limit', '2',
              'cursor', pg_temp.page('{"limit": "2"}') ->> 'next_cursor')) ->> 'next_cursor')) - 'blocks',
          '{"next_cursor": null}'::jsonb, 'the third page is the last: next_cursor null');
create temporary table first_page on commit drop as select pg_temp.page('{"limit": "2"}') as body;
delete from app.blocks where blocked = (select ids[2] from expected);
select is(pg_temp.ids(pg_temp.page(jsonb_build_object('limit', '2', 'cursor', (select body ->> 'next_cursor' from first_page)))),
          (select ids[3:4] from expected), 'the block the cursor named was lifted: the next page skips nobody');
select is(test.error_of(format($$ select api.me_blocks_list(test.token('bea'), %L, '{}') $$,
                               jsonb_build_object('cursor', api.cursor_encode('friends', jsonb_build_array(api.iso(now()), test.uid('b1')))))),
          'PT400 invalid_cursor', 'the friends list''s cursor is 400 invalid_cursor here');
select is(test.error_of($$ select api.me_blocks_list(test.token('bea'), '{"limit": "1.5"}', '{}') $$), 'PT400 invalid_field',
          'limit 1.5 is 400 invalid_field');

select * from finish();
rollback;
