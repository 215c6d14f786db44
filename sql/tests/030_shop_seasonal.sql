-- Seasonal items: in the shop (catalog, sync, purchases) only inside their window
-- [available_from, available_until); outside it a purchase is 404 item_not_found and changes
-- nothing; those who own one keep it. Fixtures are placed around the database's now().
begin;
select plan(16);
select test.new_user('buyer');
select app.grant_coins(test.uid('buyer'), 1000, 'test');
insert into app.shop_items (kind, name, description, price, image, available_from, available_until)
values ('pet', 'Season Probe Now', 'A probe.', 10, 'probe.png', now() - interval '1 day', now() + interval '1 minute'),
       ('pet', 'Season Probe Soon', 'A probe.', 10, 'probe.png', now() + interval '1 minute', now() + interval '1 day'),
       ('pet', 'Season Probe Over', 'A probe.', 10, 'probe.png', now() - interval '1 day', now() - interval '1 minute'),
       ('pet', 'Season Probe Open', 'A probe.', 10, 'probe.png', now(), null);
create function pg_temp.listed() returns text language sql as $$
    select string_agg(e ->> 'name', ', ' order by e ->> 'name')
    from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'pets') e where e ->> 'name' like 'Season Probe%'
$$;
create function pg_temp.snapshot() returns text language sql as $$
    select md5(concat_ws('|', (select balance from app.users where id = test.uid('buyer')),
                         (select string_agg(item_id::text, ',' order by item_id) from app.user_items where user_id = test.uid('buyer')),
                         (select count(*) from app.coin_ledger where user_id = test.uid('buyer'))))
$$;

select is(pg_temp.listed(), 'Season Probe Now, Season Probe Open', 'the catalog lists the seasonal items inside their window only');
select is((select e ->> 'available_until' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'pets') e
           where e ->> 'name' = 'Season Probe Now'), api.iso(now() + interval '1 minute'), '... with the end of the window');
select ok(exists (select from app.item_price_at(test.item('Season Probe Soon'), now() + interval '1 minute')),
          'an item is in the shop from its window''s start');
select ok(not exists (select from app.item_price_at(test.item('Season Probe Now'), now() + interval '1 minute')),
          '... and out of it at its end (excluded)');
select is((select jsonb_agg(e ->> 'name' order by e ->> 'name') from jsonb_array_elements(
              (api.shop_items_sync(null, '{}', '{"known_ids": []}')).body -> 'missing') e where e ->> 'name' like 'Season Probe%'),
          '["Season Probe Now", "Season Probe Open"]'::jsonb, 'the sync sends the seasonal items inside their window');
select is((api.shop_items_sync(null, '{}', jsonb_build_object('known_ids', jsonb_build_array(test.item('Season Probe Over'))))).body -> 'removed',
          jsonb_build_array(test.item('Season Probe Over')), '... and removes one whose window ended');

create temporary table snap on commit drop as select pg_temp.snapshot() as before;
select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Season Probe Soon'))) $$),
          'PT404 item_not_found', 'an item before its window cannot be bought: 404 item_not_found');
select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Season Probe Over'))) $$),
          'PT404 item_not_found', '... nor one after it');
select is(pg_temp.snapshot(), (select before from snap), '... and nothing changed');
select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Season Probe Now'))) $$),
          'ok', 'an item inside its window is bought');

-- Owners keep what they bought: the window's end takes it out of the shop, not out of their hands.
insert into app.user_items (user_id, item_id, acquired_at) values (test.uid('buyer'), test.item('Season Probe Over'), now() - interval '2 hours');
select ok(exists (select from jsonb_array_elements((api.me_items_list(test.token('buyer'), '{}', '{}')).body -> 'items') e
                  where e -> 'item' ->> 'name' = 'Season Probe Over'), 'an owner keeps an item whose season ended');
select is((api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Season Probe Over')))).body -> 'already_owned',
          'true'::jsonb, '... and buying it again says already_owned, charging nothing');
select is(test.error_of($$ select api.me_selected_update(test.token('buyer'), '{"kind": "pet"}', jsonb_build_object('item_id', test.item('Season Probe Over'))) $$),
          'ok', '... and may select it');

select throws_ok($$ insert into app.shop_items (kind, name, description, price, image, available_from, available_until)
                    values ('pet', 'Season Probe Bad', 'A probe.', 10, 'probe.png', now(), now()) $$,
                 '23514', null, 'a window that does not end after its start is refused');
select throws_ok($$ update app.shop_items set available_until = now() + interval '1 day' where is_starter and kind = 'pet' $$,
                 '23514', null, 'a starter cannot be seasonal');
select ok((select count(*) from app.scheduled_jobs where name = 'shop_windows' and every = interval '1 minute') = 1,
          'the job shop_windows runs every minute');

select * from finish();
rollback;
