-- Gifts: send a friend coins or an item (paid at send, held), the receiver accepts (credited or
-- granted, once) or declines (refunded); never to a stranger, across a block or to oneself;
-- unfriending or blocking cancels what waits; the lists; every refusal with its code and
-- nothing written.
begin;
select plan(54);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan', 'eve']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend('ann', name) from unnest(array['bob', 'cat', 'dan']) as name;
select app.grant_coins(test.uid('ann'), 1000, 'test');
select test.new_events();
create function pg_temp.send(who text, body jsonb) returns jsonb language sql as $$
    select (api.gifts_create(test.token(who), '{}', body)).body
$$;
create function pg_temp.ledger(who text) returns text language sql as $$
    select coalesce(string_agg(c.amount::text || ' ' || c.reason, ', ' order by c.id), '')
    from app.coin_ledger c where c.user_id = test.uid(who) and c.entry = 'gift'
$$;

select api.me_push_tokens_update(test.token('bob'), '{}', jsonb_build_object('token', 'fcm-' || repeat('b', 40), 'platform', 'fcm',
                                                                            'environment', 'production'));
-- Coins: paid at send, held while pending.
create temp table g as select pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'coins', 100)) as sent;
select is((select sent -> 'gift' ->> 'status' from g), 'pending', 'ann sends bob 100 coins: pending');
select is((select (sent ->> 'balance')::integer from g), 900, '... her answer: her balance, paid at send');
select is(pg_temp.ledger('ann'), '-100 gift sent', '... one gift ledger row holds the coins');
select is((select sent -> 'gift' -> 'from' ->> 'id' from g), test.uid('ann')::text, '... from ann');
select is((select (sent -> 'gift' ->> 'paid')::integer from g), 100, '... paid 100');
select is(test.new_events(), '{"ann balance.changed 900","bob gift.received ann"}', 'bob hears gift.received (from ann), ann her balance');
select is((select e.payload - 'gift_id' from app.events e where e.type = 'gift.received' and e.user_id = test.uid('bob')),
          jsonb_build_object('user_id', test.uid('ann'), 'coins', 100, 'item_id', null), '... with ids and the coins only');
select is((select o.type from app.push_outbox o where o.token = 'fcm-' || repeat('b', 40)), 'gift.received', 'bob''s phone is woken for it');
select ok((select not (o.data ?| array['balance', 'email']) from app.push_outbox o where o.token = 'fcm-' || repeat('b', 40)),
          '... with neither a balance nor an email in it');

-- An item: bought for the friend at its price.
create temp table gi as select pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'item_id', test.item('Pip the Fox'))) as sent;
select is((select (sent ->> 'balance')::integer from gi), 720, 'ann sends bob Pip the Fox: she pays its price, 180');
select is((select sent -> 'gift' -> 'item' ->> 'name' from gi), 'Pip the Fox', '... the gift names the item');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob'), 'item_id', test.item('Pip the Fox')))),
          'PT409 gift_item_owned', 'the same item again while it waits for bob: 409 gift_item_owned');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob'), 'item_id', test.item('Sprout')))),
          'PT409 gift_item_owned', 'an item bob owns (a starter): 409 gift_item_owned');
select test.new_events();

-- Refusals, each writing nothing.
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('ann'), 'coins', 1))),
          'PT422 cannot_gift_self', 'to herself: 422 cannot_gift_self');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('eve'), 'coins', 1))),
          'PT404 user_not_found', 'to eve, not a friend: 404 user_not_found');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', gen_random_uuid(), 'coins', 1))),
          'PT404 user_not_found', 'to an unknown id: 404 user_not_found');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob'), 'coins', 1, 'item_id', test.item('Pip the Fox')))),
          'PT400 invalid_field', 'coins and an item together: 400');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob')))),
          'PT400 invalid_field', 'neither coins nor an item: 400');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob'), 'coins', 0))),
          'PT400 invalid_field', 'zero coins: 400');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob'), 'coins', '5'))),
          'PT400 invalid_field', 'coins as a string: 400');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', 'bob', 'coins', 5))),
          'PT400 invalid_field', 'a receiver that is not an id: 400');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob'), 'item_id', gen_random_uuid()))),
          'PT404 item_not_found', 'an unknown item: 404 item_not_found');
select is(test.error_of(format($$ select pg_temp.send('bob', %L) $$, jsonb_build_object('to', test.uid('ann'), 'coins', 1))),
          'PT409 insufficient_funds', 'bob (no coins) sends ann 1: 409 insufficient_funds');
select is((select count(*)::integer from app.gifts g where g.sender_id in (select test.uid(a.name) from test.accounts a)), 2,
          '... none of these wrote a gift');
select is(test.new_events(), '{}', '... or told anyone anything');

-- Accept: the coins move once.
select is((api.gifts_accept(test.token('bob'), jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from g)), '{}')).body ->> 'balance',
          '100', 'bob accepts the coins: his balance is 100');
select is(pg_temp.ledger('bob'), '100 gift received', '... one gift ledger row credits him');
select is(test.new_events(), '{"ann gift.accepted bob","bob balance.changed 100"}', 'ann hears gift.accepted; bob his balance');
select is((api.gifts_accept(test.token('bob'), jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from g)), '{}')).body -> 'gift' ->> 'status',
          'accepted', 'accepting again answers the same');
select is(pg_temp.ledger('bob'), '100 gift received', '... and credits nothing more');
select is(test.error_of(format($$ select api.gifts_decline(test.token('bob'), %L, '{}') $$, jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from g)))),
          'PT409 gift_not_pending', 'declining an accepted gift: 409 gift_not_pending');
select throws_ok(format($$ update app.gifts set status = 'declined' where id = %L $$, (select sent -> 'gift' ->> 'id' from g)),
                 '23001', null, 'the table refuses a second end, whatever function tries');
select throws_ok(format($$ insert into app.coin_ledger (user_id, entry, amount, reason, gift_id) values (%L, 'gift', 100, 'again', %L) $$,
                        test.uid('bob'), (select sent -> 'gift' ->> 'id' from g)),
                 '23505', null, 'the ledger refuses a second settlement of one gift');

-- Someone else's gift, an unknown id.
select is(test.error_of(format($$ select api.gifts_accept(test.token('ann'), %L, '{}') $$, jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gi)))),
          'PT404 gift_not_found', 'the sender cannot accept her own gift: 404 gift_not_found');
select is(test.error_of(format($$ select api.gifts_decline(test.token('cat'), %L, '{}') $$, jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gi)))),
          'PT404 gift_not_found', 'cat cannot decline bob''s gift: 404');
select is(test.error_of(format($$ select api.gifts_accept(test.token('bob'), %L, '{}') $$, jsonb_build_object('id', gen_random_uuid()))),
          'PT404 gift_not_found', 'an unknown id: 404');
select is(test.error_of($$ select api.gifts_accept(test.token('bob'), '{"id": "nope"}', '{}') $$), 'PT400 invalid_field', 'a malformed id: 400');

-- Lists before the decline: bob's pending, ann's sent.
select is((select jsonb_agg(x -> 'item' ->> 'name') from jsonb_array_elements((api.gifts_received_list(test.token('bob'), '{}', null)).body -> 'gifts') x),
          '["Pip the Fox"]', 'bob''s received list: the pending gift only');
select is((select jsonb_agg(x ->> 'status' order by x ->> 'status') from jsonb_array_elements((api.gifts_sent_list(test.token('ann'), '{}', null)).body -> 'gifts') x),
          '["accepted", "pending"]', 'ann''s sent list: both, whatever became of them');

-- Decline: the sender is refunded.
select is((api.gifts_decline(test.token('bob'), jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gi)), '{}')).body -> 'gift' ->> 'status',
          'declined', 'bob declines Pip the Fox');
select is(pg_temp.ledger('ann'), '-100 gift sent, -180 gift sent, 180 gift refunded', '... ann is refunded its price');
select is(test.new_events(), '{"ann balance.changed 900","ann gift.declined bob"}', '... and hears gift.declined');
select is((api.gifts_decline(test.token('bob'), jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gi)), '{}')).body -> 'gift' ->> 'status',
          'declined', 'declining again answers the same');
select is(test.error_of(format($$ select api.gifts_accept(test.token('bob'), %L, '{}') $$, jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gi)))),
          'PT409 gift_not_pending', 'accepting a declined gift: 409 gift_not_pending');

-- An item bob bought himself while the gift waited: accepting refunds ann.
create temp table gb as select pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'item_id', test.item('Pip the Fox'))) as sent;
select app.grant_coins(test.uid('bob'), 100, 'test');
select api.shop_purchases_create(test.token('bob'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')));
select is((api.gifts_accept(test.token('bob'), jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gb)), '{}')).body -> 'gift' ->> 'status',
          'refunded', 'bob accepts an item he bought meanwhile: refunded');
select is((select sum(amount)::integer from app.coin_ledger where user_id = test.uid('ann')), 900, '... ann has her 180 back');

-- Blocking and unfriending cancel what waits, and refund.
create temp table gd as select pg_temp.send('ann', jsonb_build_object('to', test.uid('dan'), 'coins', 10)) as sent;
select test.new_events();
select api.users_block_create(test.token('dan'), jsonb_build_object('id', test.uid('ann')), '{}');
select is((select status from app.gifts where id = (select (sent -> 'gift' ->> 'id')::uuid from gd)), 'cancelled', 'dan blocks ann: her pending gift is cancelled');
select ok(test.new_events() @> '{"ann gift.declined dan"}', '... ann hears it came back');
select is(test.error_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('dan'), 'coins', 1))),
          'PT404 user_not_found', 'ann sends dan (who blocked her): 404 user_not_found, as to a stranger');
select is(test.error_of(format($$ select pg_temp.send('dan', %L) $$, jsonb_build_object('to', test.uid('ann'), 'coins', 1))),
          'PT404 user_not_found', 'dan sends ann (whom he blocked): 404 user_not_found');
create temp table gc as select pg_temp.send('ann', jsonb_build_object('to', test.uid('cat'), 'coins', 10)) as sent;
select api.friends_delete(test.token('cat'), jsonb_build_object('user_id', test.uid('ann')), '{}');
select is((select status from app.gifts where id = (select (sent -> 'gift' ->> 'id')::uuid from gc)), 'cancelled', 'cat unfriends ann: cancelled');
select is((select balance from app.users where id = test.uid('ann')), 900, '... ann has every coin of a gift that never arrived back');
select is(test.error_of(format($$ select api.gifts_accept(test.token('cat'), %L, '{}') $$, jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gc)))),
          'PT409 gift_not_pending', 'cat can no longer accept it');
select is_empty($$ select * from report.ledger_reconciliation $$, 'every balance is its ledger''s sum');

select * from finish();
rollback;
