-- api pages: keyset pagination for lists (docs/api-guide.md, "Pagination"). A list answers at
-- most `limit` rows in one stable order with a unique tie-breaker, and `next_cursor`: an opaque
-- text naming where the next page starts, null on the last page. A cursor is base64url (no
-- padding) of a JSON array: the list's name, then the sort key of the last row answered. The
-- next page reads the rows after that key from an index in the list's order, never skipping
-- with OFFSET, so a page costs the same however deep it is and a row added or removed meanwhile
-- neither repeats nor skips another.

-- The cursor after the row whose sort key is `key` in the list `list`.
create function api.cursor_encode(list text, key jsonb)
returns text
language sql stable
as $$
    select translate(rtrim(replace(encode(convert_to((jsonb_build_array(cursor_encode.list) || cursor_encode.key)::text, 'UTF8'),
                                          'base64'), E'\n', ''), '='), '+/', '-_')
$$;

-- The sort key a client's `cursor` parameter holds, as a JSON array of as many values as
-- `shape` names ('time': an RFC 3339 time as api.iso writes it; 'uuid'); null when there is no
-- cursor. Anything else (not base64url, not JSON, made for another list, of another shape, too
-- long) is 400 invalid_cursor: a client only ever sends back a next_cursor it was given.
create function api.cursor_decode(params jsonb, list text, shape text[])
returns jsonb
language plpgsql volatile
as $$
declare
    v_text text := cursor_decode.params ->> 'cursor';
    v_key jsonb;
    v_value text;
begin
    if v_text is null then
        return null;
    end if;
    begin
        if length(v_text) > 200 or v_text !~ '^[A-Za-z0-9_-]+$' then
            raise exception using errcode = 'data_exception';
        end if;
        v_key := convert_from(decode(rpad(translate(v_text, '-_', '+/'), (length(v_text) + 3) / 4 * 4, '='), 'base64'),
                              'UTF8')::jsonb;
        if jsonb_typeof(v_key) <> 'array' or jsonb_array_length(v_key) <> cardinality(cursor_decode.shape) + 1
           or v_key ->> 0 is distinct from cursor_decode.list then
            raise exception using errcode = 'data_exception';
        end if;
        for i in 1 .. cardinality(cursor_decode.shape) loop
            v_value := v_key ->> i;
            if jsonb_typeof(v_key -> i) <> 'string'
               or (cursor_decode.shape[i] = 'uuid' and not api.is_uuid(v_value))
               or (cursor_decode.shape[i] = 'time'
                   and (v_value !~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$' or api.iso(v_value::timestamptz) <> v_value)) then
                raise exception using errcode = 'data_exception';
            end if;
        end loop;
    exception when data_exception or invalid_parameter_value or character_not_in_repertoire then
        perform api.fail(400, 'invalid_cursor', 'The cursor is not one this list gave; send back next_cursor as it came, '
                                                 'or leave it out for the first page.');
    end;
    return v_key - 0;
end
$$;

-- `limit`: a whole number from 1 to `maximum`, `fallback` when absent (400 invalid_field otherwise).
create function api.page_limit(params jsonb, fallback integer, maximum integer)
returns integer
language sql volatile
as $$ select api.integer_param(page_limit.params, 'limit', 1, page_limit.maximum, page_limit.fallback) $$;
