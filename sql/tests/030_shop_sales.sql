-- Sales: a purchase pays the price of its transaction's now(): the sale's one minute before the
-- sale ends, the regular one a minute after; the ledger names the sale; one sale per item at a
-- time. Fixtures are placed around the database's now() (the clock scripts/test moves).
begin;
select plan(22);
select test.new_user('buyer');
select app.grant_coins(test.uid('buyer'), 1000, 'test');
insert into app.shop_items (kind, name, description, price, image)
values ('furniture', 'Sale Probe Ending', 'A probe.', 100, 'probe.png'),
       ('furniture', 'Sale Probe Ended', 'A probe.', 100, 'probe.png');
-- One sale ends a minute from now, the other ended a minute ago.
insert into app.shop_sales (item_id, price, starts_at, ends_at)
values (test.item('Sale Probe Ending'), 60, now() - interval '1 hour', now() + interval '1 minute'),
       (test.item('Sale Probe Ended'), 60, now() - interval '1 hour', now() - interval '1 minute');
create temporary table sale on commit drop as
select s.id, s.item_id, s.ends_at from app.shop_sales s where s.item_id = test.item('Sale Probe Ending');

select is((select p.price from app.item_price_at(test.item('Sale Probe Ending'), now()) p), 60,
          'one minute before its end, the sale price');
select is((select p.price from app.item_price_at(test.item('Sale Probe Ending'), (select ends_at from sale) - interval '1 microsecond') p), 60,
          '... to the last microsecond');
select is((select p.price from app.item_price_at(test.item('Sale Probe Ending'), (select ends_at from sale)) p), 100,
          'at its end (excluded), the regular price');
select is((select p.price from app.item_price_at(test.item('Sale Probe Ending'), now() - interval '1 hour' - interval '1 microsecond') p), 100,
          'before its start, the regular price');

-- The catalog: the price now, the regular price, the sale's end.
create function pg_temp.offer(name text) returns jsonb language sql as $$
    select e from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'furniture') e where e ->> 'name' = offer.name
$$;
select is(pg_temp.offer('Sale Probe Ending') - 'id' - 'image' - 'image_url' - 'description' - 'sort_order' - 'kind',
          jsonb_build_object('name', 'Sale Probe Ending', 'price', 60, 'regular_price', 100,
                             'sale_ends_at', api.iso(now() + interval '1 minute'), 'available_until', null),
          'the catalog shows the sale price, the regular price and the sale''s end');
select is(pg_temp.offer('Sale Probe Ended') -> 'price', '100'::jsonb, 'an ended sale: the regular price');
select is(pg_temp.offer('Sale Probe Ended') -> 'sale_ends_at', 'null'::jsonb, '... and no sale''s end');
select is((api.shop_items_list(null, '{}', '{}')).body ->> 'changes_at', api.iso(now() + interval '1 minute'),
          'changes_at is the next sale end');
select is((select s -> 'price' from jsonb_array_elements((api.shop_items_sync(null, '{}', '{"known_ids": []}')).body -> 'sales') s
           where s ->> 'item_id' = test.item('Sale Probe Ending')::text), '60'::jsonb, 'the sync lists the running sale');
select ok(not exists (select from jsonb_array_elements((api.shop_items_sync(null, '{}', '{"known_ids": []}')).body -> 'sales') s
                      where s ->> 'item_id' = test.item('Sale Probe Ended')::text), '... and not the ended one');

-- Purchases at this moment.
select is((api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Sale Probe Ending')))).body -> 'balance',
          '940'::jsonb, 'bought one minute before the sale''s end: 60 coins');
select is((select l.amount || ' ' || l.sale_id from app.coin_ledger l where l.user_id = test.uid('buyer') and l.item_id = test.item('Sale Probe Ending')),
          '-60 ' || (select id from sale), '... the ledger row says 60 and names the sale');
select is((api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Sale Probe Ended')))).body -> 'balance',
          '840'::jsonb, 'bought one minute after the sale''s end: the full 100');
select is((select l.amount || ' ' || coalesce(l.sale_id::text, 'no sale') from app.coin_ledger l
           where l.user_id = test.uid('buyer') and l.item_id = test.item('Sale Probe Ended')),
          '-100 no sale', '... the ledger row says 100 and names no sale');
select is((select sum(amount)::integer from app.coin_ledger where user_id = test.uid('buyer')),
          (select balance from app.users where id = test.uid('buyer')), 'the ledger and the balance agree');

-- Afford the sale price, not the regular one.
select test.new_user('thrifty');
select app.grant_coins(test.uid('thrifty'), 70, 'test');
insert into app.shop_items (kind, name, description, price, image) values ('furniture', 'Sale Probe Dear', 'A probe.', 100, 'probe.png');
select is(test.error_of($$ select api.shop_purchases_create(test.token('thrifty'), '{}', jsonb_build_object('item_id', test.item('Sale Probe Dear'))) $$),
          'PT409 insufficient_funds', '70 coins do not buy a 100-coin item');
select is(test.error_of($$ select api.shop_purchases_create(test.token('thrifty'), '{}', jsonb_build_object('item_id', test.item('Sale Probe Ending'))) $$),
          'ok', '... but buy it at its sale price of 60');

-- One sale per item at a time; a sale must end after it starts; a sale is a catalog change.
select throws_ok($$ insert into app.shop_sales (item_id, price, starts_at, ends_at)
                    values (test.item('Sale Probe Ending'), 50, now(), now() + interval '1 day') $$,
                 '23P01', null, 'two overlapping sales of one item are refused (exclusion constraint)');
select lives_ok($$ insert into app.shop_sales (item_id, price, starts_at, ends_at)
                   values (test.item('Sale Probe Ending'), 50, now() + interval '1 minute', now() + interval '1 day') $$,
                'a sale starting at the previous one''s end is allowed');
select throws_ok($$ insert into app.shop_sales (item_id, price, starts_at, ends_at)
                    values (test.item('Sale Probe Dear'), 50, now(), now()) $$,
                 '23514', null, 'a sale that does not end after its start is refused');
create temporary table version on commit drop as select v.version from app.catalog_version v;
delete from app.shop_sales where item_id = test.item('Sale Probe Dear');
insert into app.shop_sales (item_id, price, starts_at, ends_at) values (test.item('Sale Probe Dear'), 10, now() + interval '1 day', now() + interval '2 days');
select ok((select v.version from app.catalog_version v) > (select version from version), 'a new sale is a new catalog version');
select is((select e.payload -> 'version' from app.events e where e.type = 'catalog.changed' order by e.id desc limit 1),
          (select to_jsonb(v.version) from app.catalog_version v), '... announced by catalog.changed');

select * from finish();
rollback;
