-- Purchases: success, each refusal, nothing changed by a refusal, the ledger and balance agree.
begin;
select plan(20);
select test.new_user('buyer');
-- What a purchase may change: the balance, the items owned, the ledger rows.
create function pg_temp.snapshot() returns text language sql as $$
    select md5(concat_ws('|', (select balance from app.users where id = test.uid('buyer')),
                         (select string_agg(item_id::text, ',' order by item_id) from app.user_items where user_id = test.uid('buyer')),
                         (select count(*) from app.coin_ledger where user_id = test.uid('buyer'))))
$$;

select is((select count(*)::integer from app.user_items where user_id = test.uid('buyer')), 3,
          'a new account owns the three starters');
select is((select count(*)::integer from app.user_selections where user_id = test.uid('buyer')), 3,
          '... and has them selected');
select is((api.me_get(test.token('buyer'), '{}', '{}')).body -> 'selected' -> 'pet' ->> 'name', 'Sprout',
          'the profile shows the selected starter pet');

select is(app.grant_coins(test.uid('buyer'), 200, 'test'), 200, 'grant_coins returns the new balance');
create temporary table snap on commit drop as select pg_temp.snapshot() as before;

select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox'))) $$),
          'ok', 'a pet for 180 is bought');
select is((select balance from app.users where id = test.uid('buyer')), 20, 'the price is taken from the balance');
select is((select amount from app.coin_ledger where user_id = test.uid('buyer') and entry = 'spend'), -180,
          'the spend is in the ledger');
select ok(exists (select from app.user_items where user_id = test.uid('buyer') and item_id = test.item('Pip the Fox')),
          'the pet is owned');

update snap set before = pg_temp.snapshot();
select is((api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')))).body -> 'already_owned',
          'true'::jsonb, 'buying it again says already_owned');
select is((api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')))).status, 200,
          '... with status 200');
select is(pg_temp.snapshot(), (select before from snap), '... and charges nothing');

select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Treehouse'))) $$),
          'PT409 insufficient_funds', 'an item dearer than the balance is insufficient_funds');
select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', gen_random_uuid())) $$),
          'PT404 item_not_found', 'an unknown item is item_not_found');
update app.shop_items set active = false where name = 'Oak Desk';
select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', jsonb_build_object('item_id', test.item('Oak Desk'))) $$),
          'PT404 item_not_found', 'a retired item cannot be bought');
select is(test.error_of($$ select api.shop_purchases_create(test.token('buyer'), '{}', '{"item_id": "fox"}') $$), 'PT400 invalid_field',
          'an item_id that is not a UUID is invalid_field');
select is(test.error_of($$ select api.shop_purchases_create(null, '{}', '{"item_id": "00000000-0000-0000-0000-000000000000"}') $$),
          'PT401 unauthorized', 'buying needs a token');
select is(pg_temp.snapshot(), (select before from snap), 'refused purchases changed nothing');

select is(test.error_of($$ update app.coin_ledger set amount = 1 $$), '23001', 'the ledger cannot be edited');
select is_empty('select * from report.ledger_reconciliation', 'every balance equals its ledger sum');

select throws_ok(format($$ select api.shop_purchases_create(%L, '{}', '{"itme_id": "x"}') $$, test.token('buyer')),
                 'PT400', 'itme_id is not a field here.',
                 'an unknown key is reported by its name before any field is found missing');

select * from finish();
rollback;
