-- The friends list in pages: oldest friendship first (accepted_at, then the friendship's id),
-- whichever side of the pair the caller is; `limit` rows and a next_cursor that is null on the
-- last page; a friendship ended between pages skips nobody; a suspended friend is left out
-- without shortening the page; a cursor the list did not give is 400 invalid_cursor.
begin;
select plan(14);
select test.new_user(name) from unnest(array['me', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6']) as name;
-- Friendships accepted at moments around midnight UTC of today (f3 and f4 in the same
-- microsecond: their order is the friendship's id).
insert into app.friendships (user_low, user_high, requested_by, status, created_at, accepted_at)
select least(test.uid('me'), test.uid(v.name)), greatest(test.uid('me'), test.uid(v.name)), test.uid('me'), 'accepted',
       test.day_start(1), test.day_start() + v.shift
from (values ('f1', interval '-2 hours'), ('f2', interval '-1 microsecond'), ('f3', interval '0'), ('f4', interval '0'),
             ('f5', interval '1 minute'), ('f6', interval '2 minutes')) v(name, shift);

create function pg_temp.page(params jsonb, name text default 'me') returns jsonb language sql as $$
    select (api.friends_list(test.token(name), params, '{}')).body
$$;
create function pg_temp.names(page jsonb) returns text[] language sql as $$
    select coalesce(array_agg(f ->> 'display_name' order by o), '{}') from jsonb_array_elements(page -> 'friends') with ordinality x(f, o)
$$;
-- Every page of `size` from the first, as arrays of names.
create function pg_temp.walk(size integer, name text default 'me') returns text[] language plpgsql as $$
declare
    v_page jsonb := pg_temp.page(jsonb_build_object('limit', size::text), name);
    v_pages text[] := '{}';
begin
    loop
        v_pages := v_pages || array_to_string(pg_temp.names(v_page), ' ');
        exit when v_page ->> 'next_cursor' is null;
        v_page := pg_temp.page(jsonb_build_object('limit', size::text, 'cursor', v_page ->> 'next_cursor'), name);
    end loop;
    return v_pages;
end
$$;
create temporary table expected on commit drop as
select array_agg(initcap(u.display_name) order by f.accepted_at, f.id) as names
from app.friendships f join app.users u on u.id in (f.user_low, f.user_high) and u.id <> test.uid('me')
where test.uid('me') in (f.user_low, f.user_high);

select is(pg_temp.names(pg_temp.page('{}')), (select names from expected), 'no limit: every friend, oldest friendship first, ties by id');
select is(pg_temp.page('{}') -> 'next_cursor', 'null'::jsonb, '... and next_cursor is null: the one page is the last');
select is(pg_temp.walk(4), (select array[array_to_string(names[1:4], ' '), array_to_string(names[5:6], ' ')] from expected),
          'limit=4: four, then the last two, the second page''s next_cursor null');
select is(pg_temp.walk(2), (select array[array_to_string(names[1:2], ' '), array_to_string(names[3:4], ' '), array_to_string(names[5:6], ' ')]
                                   from expected),
          'limit=2: three pages, the two friends of one moment split by id across no gap');
select is(pg_temp.page('{"limit": "6"}') -> 'next_cursor', 'null'::jsonb, 'a page that ends the list exactly has no next_cursor');
select is(pg_temp.names(pg_temp.page('{}', 'f1')), array['Me'], 'the other side of the pair sees the friendship too');

-- Between pages: the friend the cursor points at leaves; the next page starts after them all the same.
create temporary table first_page on commit drop as select pg_temp.page('{"limit": "2"}') as body;
delete from app.friendships where test.uid((select lower(names[2]) from expected)) in (user_low, user_high);
select is(pg_temp.names(pg_temp.page(jsonb_build_object('limit', '2', 'cursor', (select body ->> 'next_cursor' from first_page)))),
          (select names[3:4] from expected), 'the friendship the cursor named ended: the next page skips nobody');

-- A suspended friend is left out and the page is still full.
insert into app.suspensions (user_id, until) values (test.uid((select lower(names[3]) from expected)), 'infinity');
select is(pg_temp.names(pg_temp.page('{"limit": "3"}')), (select array[names[1], names[4], names[5]] from expected),
          'a suspended friend is left out, and the page still holds three');
select isnt(pg_temp.page('{"limit": "3"}') ->> 'next_cursor', null, '... with a next page for the last one');
select isnt((api.friends_list(test.token('me'), '{"limit": "1"}', '{}')).etag, (api.friends_list(test.token('me'), '{}', '{}')).etag,
            'each page has its own ETag');

select is(test.error_of($$ select api.friends_list(test.token('me'), '{"cursor": "bm9wZQ"}', '{}') $$), 'PT400 invalid_cursor',
          'a cursor the list did not give is 400 invalid_cursor');
select is(test.error_of(format($$ select api.friends_list(test.token('me'), %L, '{}') $$,
                               jsonb_build_object('cursor', api.cursor_encode('blocks', jsonb_build_array(api.iso(now()), test.uid('f1')))))),
          'PT400 invalid_cursor', 'the blocks list''s cursor is 400 invalid_cursor here');
select is(test.error_of($$ select api.friends_list(test.token('me'), '{"limit": "201"}', '{}') $$), 'PT400 invalid_field',
          'limit past 200 is 400 invalid_field');
select is(test.error_of($$ select api.friends_list(test.token('me'), '{"limit": "-1"}', '{}') $$), 'PT400 invalid_field',
          'a negative limit is 400 invalid_field');

select * from finish();
rollback;
