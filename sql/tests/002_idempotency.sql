-- Idempotency-Key: replays answer the first answer without doing the work again, another
-- request with the key is 422, keys are per user (per email without a token), secrets are
-- never stored in the clear, rolled-back work keeps no key, old keys are taken over and pruned.
begin;
select plan(25);
select test.new_user('ann');
select test.new_user('ben');
select app.grant_coins(test.uid('ann'), 1000, 'test');
-- The params the server passes with a key: the address, and its seal key (SealKey.swift).
create function pg_temp.k(key text, extra jsonb default '{}') returns jsonb language sql as
$$ select jsonb_build_object('idempotency_key', key, 'client_ip', '192.0.2.1', 'seal_key', repeat('s', 32)) || extra $$;
create function pg_temp.spends(name text) returns integer language sql as
$$ select count(*)::integer from app.coin_ledger where user_id = test.uid(name) and entry = 'spend' $$;

-- Without a key the endpoint simply answers, and nothing is kept.
select is((api.idempotent('api.shop_purchases_create', test.token('ann'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')))).status,
          null, 'without a key, api.idempotent is the endpoint');
select is((select count(*)::integer from app.idempotency_keys), 0, '... and keeps no key');

-- A purchase replayed: the same answer, one spend.
create temporary table first on commit drop as
select (api.idempotent('api.shop_purchases_create', test.token('ann'), pg_temp.k('buy-1'),
                       jsonb_build_object('item_id', test.item('Mochi the Cat')))).*;
select is((select to_jsonb(r) from api.idempotent('api.shop_purchases_create', test.token('ann'), pg_temp.k('buy-1', '{"client_ip": "198.51.100.7"}'),
                                        jsonb_build_object('item_id', test.item('Mochi the Cat'))) r),
          (select to_jsonb(f) from first f), 'the same key and body (from another address) replay the first answer');
select is(pg_temp.spends('ann'), 2, 'the purchase was paid once (Pip, then Mochi once)');
select is((select (f.body ->> 'balance')::integer from first f), (select balance from app.users where id = test.uid('ann')),
          'the balance is the one the first answer showed');
select is(test.error_of($$ select api.idempotent('api.shop_purchases_create', test.token('ann'), pg_temp.k('buy-1'),
                                                 jsonb_build_object('item_id', test.item('Pip the Fox'))) $$),
          'PT422 idempotency_key_reused', 'the same key with another body is idempotency_key_reused');
select is(test.error_of($$ select api.idempotent('api.focus_sessions_start', test.token('ann'), pg_temp.k('buy-1'), '{"planned_minutes": 25}') $$),
          'PT422 idempotency_key_reused', 'the same key on another route is idempotency_key_reused');
select is(test.error_of($$ select api.idempotent('api.focus_sessions_finish', test.token('ann'), pg_temp.k('fin', '{"id": "00000000-0000-4000-8000-000000000001"}'), '{}') $$),
          'PT404 session_not_found', 'a raised error answers as usual ...');
select is((select count(*)::integer from app.idempotency_keys where key = 'fin'), 0, '... and keeps no key: it rolled back with the work');
select is(test.error_of($$ select api.idempotent('api.focus_sessions_start', test.token('ben'), pg_temp.k('buy-1'), '{"planned_minutes": 25}') $$),
          'ok', 'keys are per user: ben''s buy-1 is not ann''s');

-- Validation, and read-only endpoints.
select is(test.error_of($$ select api.idempotent('api.shop_purchases_create', test.token('ann'), pg_temp.k(''), '{}') $$),
          'PT400 invalid_field', 'an empty key is invalid_field');
select is(test.error_of($$ select api.idempotent('api.shop_purchases_create', test.token('ann'), pg_temp.k(repeat('k', 256)), '{}') $$),
          'PT400 invalid_field', 'a key of 256 characters is invalid_field');
select is(test.error_of($$ select api.idempotent('api.shop_purchases_create', test.token('ann'), pg_temp.k(E'caf\u00e9'), '{}') $$),
          'PT400 invalid_field', 'a key that is not printable ASCII is invalid_field');
select api.idempotent('api.mindfulness_tips_sync', null, pg_temp.k('sync-1'), '{"known_ids": []}');
select is((select count(*)::integer from app.idempotency_keys where key = 'sync-1'), 0, 'a read-only endpoint keeps no key');

-- Public routes: per email; an answer with a token is sealed, a replay needs the same password.
create temporary table reg on commit drop as
select (api.idempotent('api.auth_register', null, pg_temp.k('reg-1'),
                       '{"email": "cat@example.com", "password": "correct horse", "display_name": "Cat"}')).*;
select is((select (r.status, r.body ->> 'token') from api.idempotent('api.auth_register', null, pg_temp.k('reg-1'),
                       '{"email": "cat@example.com", "password": "correct horse", "display_name": "Cat"}') r),
          (select (g.status, g.body ->> 'token') from reg g), 'a retried register with its key replays the first token');
select is((select count(*)::integer from app.users where email = 'cat@example.com'), 1, '... and made one account');
select ok((select reply is null and sealed_reply is not null and position(convert_to((select g.body ->> 'token' from reg g), 'UTF8') in sealed_reply) = 0
           from app.idempotency_keys where key = 'reg-1'), 'the stored answer is sealed: the token is not in it');
select is(test.error_of($$ select api.idempotent('api.auth_register', null, pg_temp.k('reg-1'),
                       '{"email": "cat@example.com", "password": "another horse", "display_name": "Cat"}') $$),
          'PT422 idempotency_key_reused', 'the same key with another password is idempotency_key_reused');
select is(test.answer_of($$ select api.idempotent('api.auth_login', null, pg_temp.k('login-1'), '{"email": "cat@example.com", "password": "wrong horse"}') $$),
          'PT401 invalid_credentials', 'a wrong password answers its problem ...');
select is(test.answer_of($$ select api.idempotent('api.auth_login', null, pg_temp.k('login-1'), '{"email": "cat@example.com", "password": "wrong horse"}') $$)
          || ' ' || (select count(*) from app.login_failures where email = 'cat@example.com'),
          'PT401 invalid_credentials 1', '... which a replay repeats without counting a second failure');

-- A token that no longer authenticates replays its own key: a retried logout is 204 again.
select api.idempotent('api.auth_logout', test.token('ben'), pg_temp.k('out-1'), '{}');
select is(test.answer_of($$ select api.idempotent('api.auth_logout', test.token('ben'), pg_temp.k('out-1'), '{}') $$), 'ok',
          'a retried logout replays its success (204) with its now revoked token');
select is(test.error_of($$ select api.idempotent('api.auth_logout', test.token('ben'), pg_temp.k('out-2'), '{}') $$),
          'PT401 unauthorized', 'a new key with a revoked token is 401');

-- Keys past the retention are taken over, and pruned.
update app.idempotency_keys set created_at = now() - interval '25 hours' where key = 'buy-1' and scope = 'user:' || test.uid('ann');
select is((api.idempotent('api.shop_purchases_create', test.token('ann'), pg_temp.k('buy-1'),
                          jsonb_build_object('item_id', test.item('Bao the Panda')))).body -> 'item' ->> 'name',
          'Bao the Panda', 'a key older than 24 hours is a new key');
-- A key goes within a day after its retention (its day's partition dropped whole): one written
-- just before the day holding now() - 24 hours began is gone.
update app.idempotency_keys set created_at = app.partition_slot(now() - interval '24 hours', interval '1 day') - interval '1 hour'
where key = 'reg-1';
select ok(app.prune_idempotency_keys() >= 1, 'app.prune_idempotency_keys deletes the keys past the retention ...');
select is((select count(*)::integer from app.idempotency_keys where key = 'reg-1'), 0, '... the key with them');

select * from finish();
rollback;
