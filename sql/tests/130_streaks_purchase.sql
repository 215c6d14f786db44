-- Buying streak freezes: the price from app.economy_settings through the ledger, at most two
-- held (a constraint, not only the function's check), each refusal changing nothing, the
-- freezes and the ledger agreeing, and /config naming the price.
begin;
select plan(23);
select test.new_user(name) from unnest(array['buyer', 'poor', 'free']) as name;
select app.grant_coins(test.uid('buyer'), 200, 'test');
select app.grant_coins(test.uid('poor'), 10, 'test');
select test.new_events();
-- What a purchase may change: the balance, the freezes, the ledger rows.
create function pg_temp.snapshot(name text) returns text language sql as $$
    select md5(concat_ws('|', (select balance from app.users where id = test.uid(name)),
                         (select string_agg(id::text || slot, ',' order by id) from app.streak_freezes where user_id = test.uid(name)),
                         (select count(*) from app.coin_ledger where user_id = test.uid(name))))
$$;
create function pg_temp.buy(name text) returns jsonb language sql as $$
    select (api.me_streak_freezes_create(test.token(name), '{}', '{}')).body
$$;

select is((api.config_get(null, '{}', '{}')).body -> 'economy' -> 'streak_freeze_price', '50'::jsonb,
          '/config names the price a DBA set (50 by default)');
select is((api.config_get(null, '{}', '{}')).body -> 'economy' -> 'streak_freezes_max', '2'::jsonb,
          '... and how many one may hold');

select is(pg_temp.buy('buyer') - 'freeze', '{"freezes_held": 1, "freezes_max": 2, "price": 50, "balance": 150}'::jsonb,
          'a freeze is bought: one held, the price taken from the balance');
select is((select balance from app.users where id = test.uid('buyer')), 150, 'the balance moved by the price');
select is((select amount from app.coin_ledger where user_id = test.uid('buyer') and entry = 'freeze'), -50,
          'the purchase is a freeze entry in the ledger');
select is((select l.freeze_id from app.coin_ledger l where l.user_id = test.uid('buyer') and l.entry = 'freeze'),
          (select f.id from app.streak_freezes f where f.user_id = test.uid('buyer')), '... naming the freeze it paid');
select is(test.new_events(), array['buyer balance.changed 150'], 'the buyer hears balance.changed, as for any purchase');
select is((pg_temp.buy('buyer') ->> 'freezes_held')::integer, 2, 'a second freeze is held');

create temporary table snap on commit drop as select pg_temp.snapshot('buyer') as before;
select is(test.error_of($$ select pg_temp.buy('buyer') $$), 'PT409 streak_freezes_full', 'a third is 409 streak_freezes_full');
select is(pg_temp.snapshot('buyer'), (select before from snap), '... and changes nothing (balance, freezes, ledger)');
select is((select balance from app.users where id = test.uid('buyer')), 100, 'two freezes cost two prices, once each');

-- The limit is the table's: whatever function writes, a third held freeze is refused.
select is(test.error_of(format($$ insert into app.streak_freezes (user_id, slot, price) values (%L, 1, 0) $$, test.uid('buyer'))),
          '23505', 'a second freeze in a held slot violates unique (user_id, slot)');
select is(test.error_of(format($$ insert into app.streak_freezes (user_id, slot, price) values (%L, 3, 0) $$, test.uid('buyer'))),
          '23514', 'there is no third slot');
select is(test.error_of(format($$ insert into app.coin_ledger (user_id, entry, amount, reason, freeze_id)
                                  select user_id, 'freeze', -50, 'again', id from app.streak_freezes where user_id = %L and slot = 1 $$,
                               test.uid('buyer'))),
          '23505', 'a freeze is paid at most once (unique ledger index)');
select is(test.error_of(format($$ insert into app.coin_ledger (user_id, entry, amount, reason) values (%L, 'freeze', -50, 'no freeze') $$,
                               test.uid('buyer'))),
          '23514', 'a freeze entry names its freeze');

select is(test.error_of($$ select pg_temp.buy('poor') $$), 'PT409 insufficient_funds', 'too few coins is 409 insufficient_funds');
select is((select count(*)::integer from app.streak_freezes where user_id = test.uid('poor')), 0, '... and no freeze is held');
select is((select balance from app.users where id = test.uid('poor')), 10, '... nor any coin taken');
select is(test.error_of($$ select api.me_streak_freezes_create('not-a-token', '{}', '{}') $$), 'PT401 unauthorized',
          'an unknown token is 401');

-- A DBA sets the price; 0 makes freezes free: held, with no ledger row (a ledger row moves coins).
update app.economy_settings set streak_freeze_price = 0;
select is((pg_temp.buy('free') - 'freeze'), '{"freezes_held": 1, "freezes_max": 2, "price": 0, "balance": 0}'::jsonb,
          'a free freeze is held at price 0');
select is((select count(*)::integer from app.coin_ledger where user_id = test.uid('free') and entry = 'freeze'), 0,
          '... with no ledger row');
select is(test.error_of($$ update app.economy_settings set streak_freeze_price = -1 $$), '23514', 'a price is never negative');

-- The freezes and the ledger agree: every paid freeze has its entry for its price.
select is((select count(*)::integer from app.streak_freezes f
           where f.price > 0 and not exists (select from app.coin_ledger l
                                             where l.freeze_id = f.id and l.entry = 'freeze' and l.amount = -f.price)),
          0, 'every paid freeze has its ledger entry at its price');

select * from finish();
rollback;
