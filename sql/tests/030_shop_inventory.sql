-- Catalog, sync, inventory and selection.
begin;
select plan(15);
select test.new_user('owner');

select is((select jsonb_array_length((api.shop_items_list(null, '{}', '{}')).body -> 'pets')), 8, 'the shop lists 8 pets');
select is((select jsonb_array_length((api.shop_items_list(null, '{}', '{}')).body -> 'furniture')),
          10 + (select count(*)::integer from app.shop_items i
                where i.kind = 'furniture' and i.available_until is not null and exists (select from app.item_price_at(i.id, now()))),
          '... and 10 pieces of furniture, and the seasonal ones inside their window');
select is((api.shop_items_list(null, '{}', '{}')).etag, 'catalog-' || (select version from app.catalog_version) || '-en',
          'the ETag is the catalog version');
create temporary table tag on commit drop as select (api.shop_items_list(null, '{}', '{}')).etag as before;
update app.shop_items set price = price + 1 where name = 'Campfire';
select isnt((api.shop_items_list(null, '{}', '{}')).etag, (select before from tag), 'a price change changes the ETag');

select is((select jsonb_array_length((api.shop_items_sync(null, '{}', jsonb_build_object('known_ids', '[]'::jsonb))).body -> 'missing')),
          (select count(*)::integer from app.shop_items i where exists (select from app.item_price_at(i.id, now()))),
          'a phone with no ids is missing every item in the shop now');
select is((api.shop_items_sync(null, '{}', jsonb_build_object('known_ids', (select jsonb_agg(i.id) from app.shop_items i
                                                                             where exists (select from app.item_price_at(i.id, now())))))).body
          - 'sales' - 'changes_at',
          '{"missing": [], "removed": []}'::jsonb, 'a phone with every id is missing nothing');
select is((api.shop_items_sync(null, '{}', jsonb_build_object('known_ids', jsonb_build_array('00000000-0000-0000-0000-000000000001')))).body -> 'removed',
          '["00000000-0000-0000-0000-000000000001"]'::jsonb, 'an id that is not an item comes back as removed');
select is(test.error_of($$ select api.shop_items_sync(null, '{}', '{"known_ids": ["x"]}') $$), 'PT400 invalid_field',
          'a known id that is not a UUID is invalid_field');
select is(test.error_of($$ select api.shop_items_sync(null, '{}', '{"known_ids": {}}') $$), 'PT400 invalid_field',
          'known_ids that is not an array is invalid_field');

select is((select jsonb_array_length((api.me_items_list(test.token('owner'), '{"kind": "pet"}', '{}')).body -> 'items')), 1,
          'a new user owns one pet');
select is(test.error_of($$ select api.me_items_list(test.token('owner'), '{"kind": "hat"}', '{}') $$), 'PT400 invalid_field',
          'an unknown kind is invalid_field');

select is(test.error_of($$ select api.me_selected_update(test.token('owner'), '{"kind": "pet"}', jsonb_build_object('item_id', test.item('Ember'))) $$),
          'PT409 not_owned', 'selecting an item not owned is not_owned');
select is(test.error_of($$ select api.me_selected_update(test.token('owner'), '{"kind": "sound"}', jsonb_build_object('item_id', test.item('Sprout'))) $$),
          'PT400 kind_mismatch', 'a pet selected as a sound is kind_mismatch');
select app.grant_coins(test.uid('owner'), 600, 'test');
select api.shop_purchases_create(test.token('owner'), '{}', jsonb_build_object('item_id', test.item('Ember')));
select is(test.error_of($$ select api.me_selected_update(test.token('owner'), '{"kind": "pet"}', jsonb_build_object('item_id', test.item('Ember'))) $$),
          'ok', 'an owned pet can be selected');
select is((api.me_get(test.token('owner'), '{}', '{}')).body -> 'selected' -> 'pet' ->> 'name', 'Ember', '... and the profile shows it');

select * from finish();
rollback;
