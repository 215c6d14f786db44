-- Cursors: what api.cursor_encode writes api.cursor_decode reads back for the same list and
-- shape; anything else a client may send (not base64url, not JSON, another list's, another
-- shape, a time not as the server writes it, too long) is 400 invalid_cursor. limit is 1 to the
-- list's maximum, its default when absent.
begin;
select plan(17);

create function pg_temp.decoded(cursor text, list text default 'friends') returns jsonb language sql as $$
    select api.cursor_decode(jsonb_build_object('cursor', cursor), list, array['time', 'uuid'])
$$;
create function pg_temp.refused(cursor text, list text default 'friends') returns text language sql as $$
    select test.error_of(format('select pg_temp.decoded(%L, %L)', cursor, list))
$$;
create function pg_temp.b64(raw text) returns text language sql as $$
    select translate(rtrim(replace(encode(convert_to(raw, 'UTF8'), 'base64'), E'\n', ''), '='), '+/', '-_')
$$;

select is(pg_temp.decoded(api.cursor_encode('friends', '["2026-11-29T23:59:59.999999Z", "0b7e1c2a-1f6e-4f44-9a53-3c3c1c1c1c1c"]')),
          '["2026-11-29T23:59:59.999999Z", "0b7e1c2a-1f6e-4f44-9a53-3c3c1c1c1c1c"]'::jsonb,
          'a cursor reads back as the sort key it was made from');
select matches(api.cursor_encode('friends', '["2026-11-29T23:59:59.999999Z", "0b7e1c2a-1f6e-4f44-9a53-3c3c1c1c1c1c"]'),
               '^[A-Za-z0-9_-]+$', 'a cursor is base64url without padding: safe in a query string as it is');
select is(api.cursor_decode('{}', 'friends', array['time', 'uuid']), null, 'no cursor: null (the first page)');
select is(api.page_limit('{}', 200, 200), 200, 'no limit: the default');
select is(api.page_limit('{"limit": "7"}', 200, 200), 7, 'limit=7: 7');
select is(test.error_of($$ select api.page_limit('{"limit": "201"}', 200, 200) $$), 'PT400 invalid_field', 'past the maximum: 400 invalid_field');
select is(test.error_of($$ select api.page_limit('{"limit": "0"}', 200, 200) $$), 'PT400 invalid_field', 'limit 0: 400 invalid_field');
select is(test.error_of($$ select api.page_limit('{"limit": "ten"}', 200, 200) $$), 'PT400 invalid_field', 'limit ten: 400 invalid_field');

select is(pg_temp.refused(api.cursor_encode('blocks', '["2026-11-29T23:59:59.999999Z", "0b7e1c2a-1f6e-4f44-9a53-3c3c1c1c1c1c"]')),
          'PT400 invalid_cursor', 'a cursor another list gave: 400 invalid_cursor');
select is(pg_temp.refused('not a cursor!'), 'PT400 invalid_cursor', 'characters outside base64url: 400 invalid_cursor');
select is(pg_temp.refused('a'), 'PT400 invalid_cursor', 'base64url that decodes to no whole byte: 400 invalid_cursor');
select is(pg_temp.refused(pg_temp.b64('{"friends": 1}')), 'PT400 invalid_cursor', 'JSON that is not an array: 400 invalid_cursor');
select is(pg_temp.refused(pg_temp.b64('["friends", "2026-11-29T23:59:59.999999Z"')), 'PT400 invalid_cursor', 'not JSON: 400 invalid_cursor');
select is(pg_temp.refused(pg_temp.b64('["friends", "2026-11-29T23:59:59.999999Z"]')), 'PT400 invalid_cursor',
          'a key of another shape (one value for two): 400 invalid_cursor');
select is(pg_temp.refused(pg_temp.b64('["friends", "2026-02-30T00:00:00.000000Z", "0b7e1c2a-1f6e-4f44-9a53-3c3c1c1c1c1c"]')),
          'PT400 invalid_cursor', 'a time that is no day (February 30): 400 invalid_cursor');
select is(pg_temp.refused(pg_temp.b64('["friends", "2026-11-29T23:59:59Z", "0b7e1c2a"]')), 'PT400 invalid_cursor',
          'a time or id not as the server writes them: 400 invalid_cursor');
select is(pg_temp.refused(repeat('A', 400)), 'PT400 invalid_cursor', 'longer than any cursor: 400 invalid_cursor');

select * from finish();
rollback;
