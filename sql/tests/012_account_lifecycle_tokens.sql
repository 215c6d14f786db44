-- Devices: GET /me/tokens and DELETE /me/tokens/{id}; last use and a sliding expiry written at
-- most once an hour per token.
begin;
select plan(14);
select test.new_user('dev');
select test.new_user('eve');
create temporary table phone on commit drop as
select (api.auth_login(null, '{"user_agent": "FocusIsland/2.1 (iPhone; iOS 18.1)"}',
                       '{"email": "dev@example.com", "password": "correct horse"}')).body ->> 'token' as token;
create function pg_temp.tokens(token text) returns jsonb language sql as $$
    select (api.me_tokens_list(token, '{}', '{}')).body -> 'tokens'
$$;
create function pg_temp.phone_id() returns text language sql as $$
    select t ->> 'id' from jsonb_array_elements(pg_temp.tokens((select token from phone))) t where (t ->> 'current')::boolean
$$;

select is(jsonb_array_length(pg_temp.tokens(test.token('dev'))), 2, 'both of the user''s tokens are listed');
select is((select array_agg(k order by k) from jsonb_object_keys(pg_temp.tokens(test.token('dev')) -> 0) k),
          array['created_at', 'current', 'expires_at', 'id', 'label', 'last_used_at'], 'a device has exactly the documented keys');
select is((select t ->> 'label' from jsonb_array_elements(pg_temp.tokens(test.token('dev'))) t where t ->> 'id' = pg_temp.phone_id()),
          'FocusIsland/2.1 (iPhone; iOS 18.1)', 'the label is the User-Agent the token was issued to');
select is((select count(*)::integer from jsonb_array_elements(pg_temp.tokens(test.token('dev'))) t where (t ->> 'current')::boolean), 1,
          'exactly one is marked current');
select ok(not exists (select from jsonb_array_elements(pg_temp.tokens(test.token('dev'))) t
                      where t ->> 'id' in (select encode(digest, 'hex') from app.auth_tokens)),
          'the public id is not the digest');

select is(test.error_of(format($$ select api.me_tokens_delete(test.token('eve'), %L, '{}') $$, jsonb_build_object('id', pg_temp.phone_id()))),
          'PT404 token_not_found', 'another user''s token id is 404 token_not_found');
select is(test.error_of($$ select api.me_get((select token from phone), '{}', '{}') $$), 'ok', '... and that token still works');
select is(test.error_of($$ select api.me_tokens_delete(test.token('dev'), '{"id": "not-a-uuid"}', '{}') $$),
          'PT400 invalid_field', 'a malformed id is 400');
create temporary table phone_id on commit drop as select pg_temp.phone_id() as id;
select is(test.error_of(format($$ select api.me_tokens_delete(test.token('dev'), %L, '{}') $$, jsonb_build_object('id', (select id from phone_id)))),
          'ok', 'the owner ends the phone''s token from another device');
select is(test.error_of($$ select api.me_get((select token from phone), '{}', '{}') $$), 'PT401 unauthorized', '... and it stops working at once');
select is(test.error_of(format($$ select api.me_tokens_delete(test.token('dev'), %L, '{}') $$, jsonb_build_object('id', (select id from phone_id)))),
          'PT404 token_not_found', 'ending it again is 404');

-- Sliding expiry: a use within the hour writes nothing; after an hour the use is recorded and
-- the expiry moves to 30 days from now.
update app.auth_tokens set last_used_at = now() - interval '59 minutes', expires_at = now() + interval '2 days'
where digest = sha256(convert_to(test.token('dev'), 'UTF8'));
select api.me_get(test.token('dev'), '{}', '{}');
select is((select expires_at from app.auth_tokens where digest = sha256(convert_to(test.token('dev'), 'UTF8'))), now() + interval '2 days',
          'a use within the hour of the last one writes nothing');
update app.auth_tokens set last_used_at = now() - interval '61 minutes'
where digest = sha256(convert_to(test.token('dev'), 'UTF8'));
select api.me_get(test.token('dev'), '{}', '{}');
select is((select row(last_used_at, expires_at)::text from app.auth_tokens where digest = sha256(convert_to(test.token('dev'), 'UTF8'))),
          row(now(), now() + interval '30 days')::text, 'a use after an hour records it and slides the expiry to 30 days on');
select is((select provolatile from pg_proc where oid = 'api.authenticate(text, boolean)'::regprocedure), 's',
          'authenticate stays STABLE: reads stay reads, the hourly write is in api.touch_token');

select * from finish();
rollback;
