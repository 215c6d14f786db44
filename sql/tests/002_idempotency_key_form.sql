-- An Idempotency-Key is 1 to 255 visible ASCII characters: one with a space is the client's
-- 400 invalid_field (the documented answer), never the table's 422, and nothing is done or kept.
begin;
select plan(6);
select test.new_user('ann');
select app.grant_coins(test.uid('ann'), 1000, 'test');

select is(test.error_of($$ select api.idempotent('api.shop_purchases_create', test.token('ann'),
                                                 '{"idempotency_key": "buy one"}', jsonb_build_object('item_id', test.item('Pip the Fox'))) $$),
          'PT400 invalid_field', 'a key with a space inside is 400 invalid_field');
select is(test.error_of($$ select api.idempotent('api.auth_login', null, '{"idempotency_key": "log in"}',
                                                 '{"email": "ann@example.com", "password": "correct horse"}') $$),
          'PT400 invalid_field', '... on a public route too');
select is(test.error_of($$ select api.idempotent('api.shop_purchases_create', test.token('ann'), '{"idempotency_key": " "}', '{}') $$),
          'PT400 invalid_field', 'a key that is one space is 400 invalid_field');
select is((select count(*)::integer from app.idempotency_keys), 0, 'no key is kept');
select is((select count(*)::integer from app.coin_ledger l where l.user_id = test.uid('ann') and l.entry = 'spend'), 0,
          'nothing was bought');
select is(test.error_of($$ select api.idempotent('api.shop_purchases_create', test.token('ann'), '{"idempotency_key": "buy~1!"}',
                                                 jsonb_build_object('item_id', test.item('Pip the Fox'))) $$),
          'ok', 'a key of visible characters without spaces is taken');

select * from finish();
rollback;
