-- Push tokens: PUT /me/push-tokens (one row per token, moved between accounts, limits per
-- sign-in and per account) and DELETE /me/push-tokens/{token}; tokens end with their sign-in.
begin;
select plan(28);
select test.new_user('ada');
select test.new_user('bo');
create function pg_temp.put(name text, body jsonb) returns jsonb language sql as $$
    select (api.me_push_tokens_update(test.token(name), '{}', body)).body
$$;
create function pg_temp.apns(n integer) returns text language sql as $$ select repeat(lpad(to_hex(n), 2, '0'), 32) $$;
create function pg_temp.count(name text) returns integer language sql as $$
    select count(*)::integer from app.push_tokens where user_id = test.uid(name)
$$;

select is((select array_agg(k order by k) from jsonb_object_keys(pg_temp.put('ada',
              jsonb_build_object('token', upper(pg_temp.apns(1)), 'platform', 'apns', 'environment', 'sandbox',
                                 'app_version', '2.1.0', 'locale', 'es'))) k),
          array['app_version', 'created_at', 'environment', 'locale', 'platform', 'token'], 'a PushToken has exactly the documented keys');
select is((select row(token, platform, environment, app_version, locale)::text from app.push_tokens where user_id = test.uid('ada')),
          row(pg_temp.apns(1), 'apns', 'sandbox', '2.1.0', 'es')::text, 'stored, the APNs token in lower case');
select is((select auth_token_id from app.push_tokens where token = pg_temp.apns(1)),
          (select id from app.auth_tokens where digest = sha256(convert_to(test.token('ada'), 'UTF8'))),
          'tied to the sign-in that registered it');
select pg_temp.put('ada', jsonb_build_object('token', pg_temp.apns(1), 'platform', 'apns', 'environment', 'production'));
select is(pg_temp.count('ada'), 1, 'the same token registered twice is one row');
select is((select environment from app.push_tokens where token = pg_temp.apns(1)), 'production', '... updated');

-- A token moving to another account moves, without the pushes queued for the first.
insert into app.push_outbox (token, event_id, type, data) values (pg_temp.apns(1), 1, 'friend_request.received', '{}');
select pg_temp.put('bo', jsonb_build_object('token', pg_temp.apns(1), 'platform', 'apns', 'environment', 'production'));
select is((pg_temp.count('ada'), pg_temp.count('bo'))::text, '(0,1)', 'a token registered by another account moves there');
select is((select count(*)::integer from app.push_outbox where token = pg_temp.apns(1)), 0, '... and what was queued for the first goes');

-- Limits: 2 per sign-in, 10 per account; one more drops the least recently registered.
select pg_temp.put('ada', jsonb_build_object('token', pg_temp.apns(n), 'platform', 'apns', 'environment', 'sandbox'))
from generate_series(2, 4) n;
select is((select array_agg(token order by token) from app.push_tokens where user_id = test.uid('ada')),
          array[pg_temp.apns(3), pg_temp.apns(4)], 'a sign-in holds 2 push tokens: the oldest registered went');
create temporary table sign_ins on commit drop as
select n, (api.auth_login(null, '{}', '{"email": "ada@example.com", "password": "correct horse"}')).body ->> 'token' as token
from generate_series(1, 6) n;
select api.me_push_tokens_update(s.token, '{}', jsonb_build_object('token', pg_temp.apns(10 + s.n * 2 + k), 'platform', 'apns',
                                                                   'environment', 'sandbox'))
from sign_ins s cross join generate_series(0, 1) k order by s.n, k;
select is(pg_temp.count('ada'), 10, 'an account holds 10 push tokens');
select ok(not exists (select from app.push_tokens where token in (pg_temp.apns(3), pg_temp.apns(4))),
          '... the least recently registered went');

-- Refusals change nothing.
create temporary table before on commit drop as select * from app.push_tokens;
select is(test.error_of($$ select api.me_push_tokens_update(test.token('ada'), '{}', '{"token": "zz", "platform": "apns", "environment": "sandbox"}') $$),
          'PT400 invalid_field', 'an APNs token that is not hex is 400');
select is(test.error_of($$ select api.me_push_tokens_update(test.token('ada'), '{}', '{"token": "short", "platform": "fcm", "environment": "sandbox"}') $$),
          'PT400 invalid_field', 'an FCM token too short is 400');
select is(test.error_of(format($$ select api.me_push_tokens_update(test.token('ada'), '{}', %L) $$,
              jsonb_build_object('token', pg_temp.apns(50), 'platform', 'webpush', 'environment', 'sandbox'))),
          'PT400 invalid_field', 'an unknown platform is 400');
select is(test.error_of(format($$ select api.me_push_tokens_update(test.token('ada'), '{}', %L) $$,
              jsonb_build_object('token', pg_temp.apns(50), 'platform', 'apns', 'environment', 'staging'))),
          'PT400 invalid_field', 'an unknown environment is 400');
select is(test.error_of(format($$ select api.me_push_tokens_update(test.token('ada'), '{}', %L) $$,
              jsonb_build_object('token', pg_temp.apns(50), 'platform', 'apns', 'environment', 'sandbox', 'locale', 'not a tag'))),
          'PT400 invalid_field', 'a locale that is not a language tag is 400');
select is(test.error_of(format($$ select api.me_push_tokens_update(test.token('ada'), '{}', %L) $$,
              jsonb_build_object('token', pg_temp.apns(50), 'platform', 'apns', 'environment', 'sandbox', 'email', 'x@example.com'))),
          'PT400 invalid_field', 'an unknown key is 400');
select is(test.error_of(format($$ select api.me_push_tokens_update(test.token('ada'), '{}', %L) $$,
              jsonb_build_object('token', 42, 'platform', 'apns', 'environment', 'sandbox'))),
          'PT400 invalid_field', 'a token of the wrong type is 400');
select is(test.error_of(format($$ select api.me_push_tokens_update('nope', '{}', %L) $$,
              jsonb_build_object('token', pg_temp.apns(50), 'platform', 'apns', 'environment', 'sandbox'))),
          'PT401 unauthorized', 'without a working token, 401');
select set_eq('select * from app.push_tokens', 'select * from before', 'the refusals changed nothing');

-- DELETE
select is(test.error_of(format($$ select api.me_push_tokens_delete(test.token('ada'), %L, '{}') $$,
              jsonb_build_object('token', pg_temp.apns(1)))),
          'PT404 push_token_not_found', 'another account''s token is 404');
select is(test.error_of(format($$ select api.me_push_tokens_delete(test.token('ada'), %L, '{}') $$,
              jsonb_build_object('token', pg_temp.apns(99)))),
          'PT404 push_token_not_found', 'an unknown token is 404');
select is(test.error_of(format($$ select api.me_push_tokens_delete(test.token('bo'), %L, '{}') $$,
              jsonb_build_object('token', upper(pg_temp.apns(1))))),
          'ok', 'the owner deletes theirs (an APNs token in any case)');
select is(pg_temp.count('bo'), 0, '... and it is gone');

-- Tokens end with their sign-in: revocation, logout, password change, deletion.
select api.me_tokens_delete(test.token('ada'), jsonb_build_object('id', (select id from app.auth_tokens a
    where a.digest = sha256(convert_to((select token from sign_ins where n = 2), 'UTF8')))::text), '{}');
select is(pg_temp.count('ada'), 8, 'a revoked sign-in''s push tokens go');
select api.auth_logout((select token from sign_ins where n = 3), '{}', '{}');
select is(pg_temp.count('ada'), 6, 'a logout takes its push tokens');
select api.me_password_update((select token from sign_ins where n = 4), '{}',
                              '{"current_password": "correct horse", "new_password": "new horse 1"}');
select is(pg_temp.count('ada'), 2, 'a password change takes the push tokens of every other sign-in');
insert into app.push_settings (user_id, muted) values (test.uid('ada'), '{friend_request.accepted}');
select api.me_delete((select token from sign_ins where n = 4), '{}', '{"password": "new horse 1"}');
select is(pg_temp.count('ada'), 0, 'account deletion takes them all');
select ok(not exists (select from app.push_settings where user_id = test.uid('ada')), '... and the push settings');

select * from finish();
rollback;
