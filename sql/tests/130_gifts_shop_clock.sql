-- Item gifts on the shop's clock: a gift is in the shop exactly when a purchase is
-- (app.item_price_at at the transaction's now()), so an item outside its seasonal window is
-- 404 item_not_found with nothing written; inside a sale it costs the sale's price, which is
-- the gift's paid, the hold, the daily limit's coins and every refund, even once the sale has
-- ended. Fixtures are placed around the database's now() (the clock scripts/test moves).
begin;
select plan(19);
update app.achievements set active = false;  -- the coins and events here are this file's own
select test.new_user(name) from unnest(array['ann', 'bob']) as name;
select api.friend_requests_create(test.token('ann'), '{}', '{"email": "bob@example.com"}');
select api.friend_requests_create(test.token('bob'), '{}', '{"email": "ann@example.com"}');
select app.grant_coins(test.uid('ann'), 1000, 'test');
insert into app.shop_items (kind, name, description, price, image, available_from, available_until)
values ('pet', 'Gift Probe Soon', 'A probe.', 10, 'probe.png', now() + interval '1 minute', now() + interval '1 day'),
       ('pet', 'Gift Probe Over', 'A probe.', 10, 'probe.png', now() - interval '1 day', now() - interval '1 minute'),
       ('pet', 'Gift Probe Now', 'A probe.', 10, 'probe.png', now() - interval '1 day', now() + interval '1 minute'),
       ('furniture', 'Gift Probe Sale', 'A probe.', 200, 'probe.png', null, null),
       ('furniture', 'Gift Probe Sale Too', 'A probe.', 200, 'probe.png', null, null);
insert into app.shop_sales (item_id, price, starts_at, ends_at)
values (test.item('Gift Probe Sale'), 20, now() - interval '1 hour', now() + interval '1 minute'),
       (test.item('Gift Probe Sale Too'), 20, now() - interval '1 hour', now() + interval '1 minute');
select test.new_events();
create function pg_temp.send(item text) returns jsonb language sql as $$
    select (api.gifts_create(test.token('ann'), '{}', jsonb_build_object('to', test.uid('bob'), 'item_id', test.item(item)))).body
$$;
create function pg_temp.snapshot() returns text language sql as $$
    select md5(concat_ws('|', (select string_agg(u.id || ':' || u.balance, ',' order by u.id) from app.users u),
                         (select count(*) from app.gifts), (select count(*) from app.coin_ledger),
                         (select string_agg(ui.item_id::text, ',' order by ui.item_id) from app.user_items ui where ui.user_id = test.uid('bob'))))
$$;
create function pg_temp.ledger() returns text language sql as $$
    select coalesce(string_agg(c.amount::text || ' ' || c.reason, ', ' order by c.id), '')
    from app.coin_ledger c where c.user_id = test.uid('ann') and c.entry = 'gift'
$$;

-- Out of season: refused as a purchase is, nothing written.
create temporary table snap on commit drop as select pg_temp.snapshot() as before;
select is(test.error_of($$ select pg_temp.send('Gift Probe Soon') $$), 'PT404 item_not_found',
          'an item before its window cannot be gifted: 404 item_not_found');
select is(test.error_of($$ select api.shop_purchases_create(test.token('ann'), '{}', jsonb_build_object('item_id', test.item('Gift Probe Soon'))) $$),
          'PT404 item_not_found', '... the answer a purchase of it gives');
select is(test.error_of($$ select pg_temp.send('Gift Probe Over') $$), 'PT404 item_not_found',
          '... nor one after its window');
select is(pg_temp.snapshot(), (select before from snap), '... no gift, no ledger row, no balance moved, bob got nothing');
select is(test.new_events(), '{}', '... and nobody heard of it');
select is((pg_temp.send('Gift Probe Now')) -> 'gift' ->> 'status', 'pending', 'an item inside its window is gifted');

-- A sale: the gift costs what a purchase now pays.
create temporary table gs on commit drop as select pg_temp.send('Gift Probe Sale') as sent;
select is((select (sent -> 'gift' ->> 'paid')::integer from gs), 20, 'a gift during a sale: paid is the sale price, 20, not 200');
select is((select (sent ->> 'balance')::integer from gs), 1000 - 10 - 20, '... the answer''s balance is after 20');
select is(pg_temp.ledger(), '-10 gift sent, -20 gift sent', '... the hold is -20');
select is((select balance from app.users where id = test.uid('ann')), 970, '... her balance moved by 20');
select is((select g.paid from app.gifts g where g.id = (select (sent -> 'gift' ->> 'id')::uuid from gs)), 20, '... the gift records 20');
select is((select coalesce(sum(g.paid), 0)::integer from app.gifts g where g.sender_id = test.uid('ann')), 30,
          '... and the day''s gift coins count 20 of it');
create temporary table gt on commit drop as select pg_temp.send('Gift Probe Sale Too') as sent;

-- The sales end (the item's price is 200 again): every refund returns what was paid.
update app.shop_sales set starts_at = now() - interval '2 hours', ends_at = now() - interval '1 hour';
select is((select p.price from app.item_price_at(test.item('Gift Probe Sale'), now()) p), 200, 'the sales are over: the price now is 200');
select test.new_events();
select is((api.gifts_decline(test.token('bob'), jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gs)), '{}')).body -> 'gift' ->> 'status',
          'declined', 'bob declines the gift bought on sale');
select is(pg_temp.ledger(), '-10 gift sent, -20 gift sent, -20 gift sent, 20 gift refunded', '... ann is refunded 20, what she paid');
select is((select (e.payload ->> 'refund')::integer from app.events e where e.type = 'gift.declined' and e.user_id = test.uid('ann')), 20,
          '... and hears gift.declined with refund 20');
select api.friends_delete(test.token('bob'), jsonb_build_object('user_id', test.uid('ann')), '{}');
select is((select status from app.gifts where id = (select (sent -> 'gift' ->> 'id')::uuid from gt)), 'cancelled',
          'bob unfriends ann: the other sale gift is cancelled');
select is((select balance from app.users where id = test.uid('ann')), 1000, '... refunded its 20 too: ann has every coin back');
select is_empty($$ select * from report.ledger_reconciliation $$, 'every balance is its ledger''s sum');

select * from finish();
