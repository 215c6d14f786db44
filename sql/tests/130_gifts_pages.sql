-- The two gift lists (GET /gifts/received, GET /gifts/sent) are one paged reader with a
-- direction (api.gifts_page); their answers are the ones the two separate readers gave before
-- 2026-12-01, byte for byte: each page of each list, at several limits, is compared with those
-- readers' code kept here (pg_temp.before). Ties on created_at (one transaction's gifts share
-- now()) fall to the id; an expired or ended gift leaves the received list but not the sent
-- one; each list refuses the other's cursor; limits outside 1 to 200 are 400.
begin;
select plan(14);
update app.achievements set active = false;  -- the coins here are this file's own
select test.new_user(name) from unnest(array['ann', 'bob', 'cat']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend('ann', 'bob');
select pg_temp.befriend('cat', 'bob');
select app.grant_coins(test.uid(name), 1000, 'test') from unnest(array['ann', 'cat']) as name;
update app.gift_settings set max_per_day = 50, max_coins_per_day = 10000;
create function pg_temp.send(who text, body jsonb) returns uuid language sql as $$
    select ((api.gifts_create(test.token(who), '{}', body)).body -> 'gift' ->> 'id')::uuid
$$;
-- Seven gifts to bob, from ann and cat, in this transaction (one created_at), plus two of ann's
-- from an hour and a day ago; one of cat's is declined, one of ann's overdue.
select pg_temp.send(who, jsonb_build_object('to', test.uid('bob'), 'coins', n))
from unnest(array['ann', 'cat', 'ann', 'cat', 'ann', 'cat', 'ann']) with ordinality as t(who, n);
select pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'item_id', test.item('Pip the Fox')));
insert into app.gifts (sender_id, receiver_id, coins, paid, created_at, expires_at)
values (test.uid('ann'), test.uid('bob'), 11, 11, now() - interval '1 hour', now() + interval '6 days'),
       (test.uid('ann'), test.uid('bob'), 12, 12, now() - interval '1 day', now() - interval '1 second');
select api.gifts_decline(test.token('bob'), jsonb_build_object('id', g.id), '{}')
from app.gifts g where g.sender_id = test.uid('cat') and g.coins = 4;

-- The readers as they were (sql/api/130_gifts.sql before 2026-12-01), but for the name.
create function pg_temp.before(direction text, token text, params jsonb) returns api.reply language plpgsql as $$
declare
    v_user_id uuid := api.authenticate(before.token);
    v_limit integer := api.page_limit(before.params, 50, 200);
    v_key jsonb := api.cursor_decode(before.params, 'gifts_' || direction, array['time', 'uuid']);
    v_page app.gifts[];
begin
    if direction = 'received' then
        select coalesce(array_agg(p.g order by (p.g).created_at desc, (p.g).id desc), '{}') into v_page
        from (select g from app.gifts g
              where g.receiver_id = v_user_id and g.status = 'pending' and g.expires_at > now()
                and (v_key is null or (g.created_at, g.id) < ((v_key ->> 0)::timestamptz, (v_key ->> 1)::uuid))
              order by g.created_at desc, g.id desc
              limit v_limit + 1) p;
    else
        select coalesce(array_agg(p.g order by (p.g).created_at desc, (p.g).id desc), '{}') into v_page
        from (select g from app.gifts g
              where g.sender_id = v_user_id
                and (v_key is null or (g.created_at, g.id) < ((v_key ->> 0)::timestamptz, (v_key ->> 1)::uuid))
              order by g.created_at desc, g.id desc
              limit v_limit + 1) p;
    end if;
    return api.ok(jsonb_build_object(
        'gifts', coalesce((select jsonb_agg(api.gift_json(g) order by g.created_at desc, g.id desc)
                           from unnest(v_page[1:v_limit]) g), '[]'),
        'next_cursor', case when cardinality(v_page) > v_limit
                            then api.cursor_encode('gifts_' || direction, jsonb_build_array(api.iso(v_page[v_limit].created_at),
                                                                                          v_page[v_limit].id)) end));
end
$$;
create function pg_temp.now_reply(direction text, token text, params jsonb) returns api.reply language plpgsql as $$
declare v api.reply;
begin
    execute format('select (api.gifts_%s_list(%L, %L, null)).*', direction, token, params) into v;
    return v;
end
$$;
-- Walks a whole list page by page with both readers; the pages' bodies as text (the bytes the
-- server sends), or the first difference.
create function pg_temp.walk(direction text, who text, page_limit integer) returns text language plpgsql as $$
declare
    v_params jsonb := case when page_limit is null then '{}' else jsonb_build_object('limit', page_limit::text) end;
    v_new api.reply;
    v_old api.reply;
    v_pages text := '';
begin
    loop
        v_new := pg_temp.now_reply(direction, test.token(who), v_params);
        v_old := pg_temp.before(direction, test.token(who), v_params);
        if v_new is distinct from v_old or v_new.body::text is distinct from v_old.body::text then
            return 'differs at ' || v_params::text || ': ' || v_new.body::text || ' <> ' || v_old.body::text;
        end if;
        v_pages := v_pages || jsonb_array_length(v_new.body -> 'gifts') || ' ';
        exit when v_new.body ->> 'next_cursor' is null;
        v_params := v_params || jsonb_build_object('cursor', v_new.body ->> 'next_cursor');
    end loop;
    return rtrim(v_pages);
end
$$;

select is(pg_temp.walk('received', 'bob', null), '8', 'bob''s received list in one page (50): as before; the declined and the overdue left out');
select is(pg_temp.walk('received', 'bob', 3), '3 3 2', '... by 3: the same pages as before, the cursors too');
select is(pg_temp.walk('received', 'bob', 1), '1 1 1 1 1 1 1 1', '... by 1: as before');
select is(pg_temp.walk('sent', 'ann', null), '7', 'ann''s sent list in one page: as before, the overdue one included');
select is(pg_temp.walk('sent', 'ann', 2), '2 2 2 1', '... by 2: as before');
select is(pg_temp.walk('sent', 'cat', 2), '2 1', 'cat''s sent list by 2, her declined gift included: as before');
select is(pg_temp.walk('received', 'ann', null), '0', 'an empty list: as before');
select is((select array_agg((x ->> 'id')::uuid order by n) from jsonb_array_elements(
               (api.gifts_received_list(test.token('bob'), '{"limit": "3"}', null)).body -> 'gifts') with ordinality x(x, n)),
          array(select g.id from app.gifts g where g.receiver_id = test.uid('bob') and g.created_at = now() and g.status = 'pending'
                order by g.id desc limit 3),
          'newest first; gifts of one instant (this transaction''s) by id, descending');
select is((select count(*)::integer from jsonb_array_elements((api.gifts_sent_list(test.token('ann'), '{}', null)).body -> 'gifts') x
           where x ->> 'status' = 'pending' and (x ->> 'expires_at')::timestamptz <= now()),
          1, 'the sent list keeps the overdue gift the received list leaves out');
select is(test.error_of(format($$ select api.gifts_sent_list(test.token('bob'), %L, null) $$, jsonb_build_object('cursor',
              (api.gifts_received_list(test.token('bob'), '{"limit": "1"}', null)).body ->> 'next_cursor'))),
          'PT400 invalid_cursor', 'the received list''s cursor given to the sent list: 400 invalid_cursor');
select is(test.error_of(format($$ select api.gifts_received_list(test.token('bob'), %L, null) $$, jsonb_build_object('cursor',
              (api.gifts_sent_list(test.token('ann'), '{"limit": "1"}', null)).body ->> 'next_cursor'))),
          'PT400 invalid_cursor', '... and the sent list''s to the received list');
select is(test.error_of($$ select api.gifts_received_list(test.token('bob'), '{"limit": "201"}', null) $$),
          'PT400 invalid_field', 'limit 201: 400 invalid_field');
select is(test.error_of($$ select api.gifts_sent_list(test.token('bob'), '{"limit": "0"}', null) $$),
          'PT400 invalid_field', 'limit 0: 400 invalid_field');
select is(test.error_of($$ select api.gifts_sent_list('nope', '{}', null) $$),
          'PT401 unauthorized', 'an unknown token: 401, before the limit is read');
select * from finish();
rollback;
