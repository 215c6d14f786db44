-- Purchases: success, each refusal, nothing changed by a refusal, the ledger and balance agree.
begin;
select plan(19);
create temporary table buyer on commit drop as select test.new_user('buyer@example.com') as account;
create function pg_temp.token() returns text language sql as $$ select account ->> 'token' from buyer $$;
create function pg_temp.uid() returns uuid language sql as $$ select test.user_id(account) from buyer $$;
create function pg_temp.item(name text) returns uuid language sql as $$ select id from app.shop_items where shop_items.name = item.name $$;
create function pg_temp.buy(item uuid) returns api.reply language sql as
$$ select api.purchase(pg_temp.token(), '{}', jsonb_build_object('item_id', item)) $$;
create function pg_temp.snapshot() returns text language sql as $$
    select md5(concat_ws('|', (select balance from app.users where id = pg_temp.uid()),
                         (select string_agg(item_id::text, ',' order by item_id) from app.user_items where user_id = pg_temp.uid()),
                         (select count(*) from app.coin_ledger where user_id = pg_temp.uid())))
$$;

select is((select count(*)::integer from app.user_items where user_id = pg_temp.uid()), 3,
          'a new account owns the three starters');
select is((select count(*)::integer from app.user_selections where user_id = pg_temp.uid()), 3,
          '... and has them selected');
select is((api.me(pg_temp.token(), '{}', '{}')).body -> 'selected' -> 'pet' ->> 'name', 'Sprout',
          'the profile shows the selected starter pet');

select is(app.grant_coins(pg_temp.uid(), 200, 'test'), 200, 'grant_coins returns the new balance');
create temporary table snap on commit drop as select pg_temp.snapshot() as before;

select is(test.error_of(format('select pg_temp.buy(%L)', pg_temp.item('Pip the Fox'))), 'ok', 'a pet for 180 is bought');
select is((select balance from app.users where id = pg_temp.uid()), 20, 'the price is taken from the balance');
select is((select amount from app.coin_ledger where user_id = pg_temp.uid() and entry = 'spend'), -180,
          'the spend is in the ledger');
select ok(exists (select from app.user_items where user_id = pg_temp.uid() and item_id = pg_temp.item('Pip the Fox')),
          'the pet is owned');

update snap set before = pg_temp.snapshot();
select is((pg_temp.buy(pg_temp.item('Pip the Fox'))).body -> 'already_owned', 'true'::jsonb,
          'buying it again says already_owned');
select is((pg_temp.buy(pg_temp.item('Pip the Fox'))).status, 200, '... with status 200');
select is(pg_temp.snapshot(), (select before from snap), '... and charges nothing');

select is(test.error_of(format('select pg_temp.buy(%L)', pg_temp.item('Treehouse'))), 'PT409 insufficient_funds',
          'an item dearer than the balance is insufficient_funds');
select is(test.error_of(format('select pg_temp.buy(%L)', gen_random_uuid())), 'PT404 item_not_found',
          'an unknown item is item_not_found');
update app.shop_items set active = false where name = 'Oak Desk';
select is(test.error_of(format('select pg_temp.buy(%L)', pg_temp.item('Oak Desk'))), 'PT404 item_not_found',
          'a retired item cannot be bought');
select is(test.error_of($$ select api.purchase(pg_temp.token(), '{}', '{"item_id": "fox"}') $$), 'PT400 invalid_field',
          'an item_id that is not a UUID is invalid_field');
select is(test.error_of($$ select api.purchase(null, '{}', '{"item_id": "00000000-0000-0000-0000-000000000000"}') $$),
          'PT401 unauthorized', 'buying needs a token');
select is(pg_temp.snapshot(), (select before from snap), 'refused purchases changed nothing');

select is(test.error_of($$ update app.coin_ledger set amount = 1 $$), '23001', 'the ledger cannot be edited');
select is_empty('select * from report.ledger_reconciliation', 'every balance equals its ledger sum');

select * from finish();
rollback;
