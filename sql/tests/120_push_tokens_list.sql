-- GET /me/push-tokens: the caller's push tokens, most recently registered first, each with its
-- platform and times; the whole token only for the calling sign-in's own, another sign-in's
-- told apart by its end and its sign-in; nobody else's tokens; 401 without a sign-in.
begin;
select plan(10);
select test.new_user('ada');
select test.new_user('bo');
create function pg_temp.apns(n integer) returns text language sql as $$ select repeat(lpad(to_hex(n), 2, '0'), 32) $$;
create function pg_temp.list(token text) returns jsonb language sql as $$
    select (api.me_push_tokens_list(token, '{}', '{}')).body -> 'push_tokens'
$$;

select is(pg_temp.list(test.token('ada')), '[]'::jsonb, 'no push token: an empty list');

-- Ada registers one from this sign-in and one from a second phone; Bo one of his own.
select api.me_push_tokens_update(test.token('ada'), '{}', jsonb_build_object('token', pg_temp.apns(1), 'platform', 'apns',
                                                                             'environment', 'production', 'app_version', '2.1.0', 'locale', 'es'));
create temporary table phone on commit drop as
select (api.auth_login(null, '{}', '{"email": "ada@example.com", "password": "correct horse"}')).body ->> 'token' as token;
select api.me_push_tokens_update((select token from phone), '{}',
                                 jsonb_build_object('token', 'fcm-' || repeat('x', 40), 'platform', 'fcm', 'environment', 'production'));
select api.me_push_tokens_update(test.token('bo'), '{}', jsonb_build_object('token', pg_temp.apns(2), 'platform', 'apns',
                                                                            'environment', 'sandbox'));
update app.push_tokens set updated_at = updated_at - interval '1 hour' where token = pg_temp.apns(1);

select is((select array_agg(k order by k) from jsonb_object_keys(pg_temp.list(test.token('ada')) -> 0) k),
          array['app_version', 'created_at', 'current', 'environment', 'last_used_at', 'locale', 'platform', 'sign_in_id',
                'token', 'token_end'],
          'a PushTokenEntry has exactly the documented keys');
select is((select array_agg(e ->> 'platform') from jsonb_array_elements(pg_temp.list(test.token('ada'))) e),
          array['fcm', 'apns'], 'the caller''s two tokens, most recently registered first; not Bo''s');
select is(pg_temp.list(test.token('ada')) -> 1 ->> 'token', pg_temp.apns(1), 'this sign-in''s own token is shown whole');
select is(pg_temp.list(test.token('ada')) -> 0 ->> 'token', null, 'another sign-in''s token is not');
select is(pg_temp.list(test.token('ada')) -> 0 ->> 'token_end', repeat('x', 6), '... only its last 6 characters');
select is((pg_temp.list(test.token('ada')) -> 0 ->> 'sign_in_id')::uuid,
          (select id from app.auth_tokens where digest = sha256(convert_to((select token from phone), 'UTF8'))),
          '... and the sign-in it belongs to (GET /me/tokens'' id)');
select is((select array_agg((e ->> 'current')::boolean) from jsonb_array_elements(pg_temp.list((select token from phone))) e),
          array[true, false], 'current: the calling sign-in''s own, seen from the second phone');
select is(pg_temp.list(test.token('ada')) -> 1 ->> 'last_used_at',
          api.iso((select updated_at from app.push_tokens where token = pg_temp.apns(1))), 'last_used_at: when it was last registered');

select is(test.error_of($$ select api.me_push_tokens_list(null, '{}', '{}') $$), 'PT401 unauthorized', 'no sign-in: 401');

select * from finish();
rollback;
