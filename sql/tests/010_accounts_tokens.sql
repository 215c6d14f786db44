-- Tokens: required, expire, and stop working at once on logout.
begin;
select plan(7);
select test.new_user('tok');

select is((api.me_get(test.token('tok'), '{}', '{}')).body ->> 'email', 'tok@example.com',
          'a fresh token reads /me');
select is(test.error_of($$ select api.me_get(null, '{}', '{}') $$), 'PT401 unauthorized', 'no token is 401');
select is(test.error_of($$ select api.me_get('made-up-token', '{}', '{}') $$), 'PT401 unauthorized',
          'an unknown token is 401');

update app.auth_tokens set expires_at = now() - interval '1 second', created_at = now() - interval '31 days'
where digest = sha256(convert_to(test.token('tok'), 'UTF8'));
select is(test.error_of($$ select api.me_get(test.token('tok'), '{}', '{}') $$),
          'PT401 unauthorized', 'an expired token is 401');

create temporary table second on commit drop as
select (api.auth_login(null, '{}', '{"email": "tok@example.com", "password": "correct horse"}')).body ->> 'token' as token;
select is((api.auth_logout((select token from second), '{}', '{}')).status, null,
          'logout answers with the route''s status (204)');
select is(test.error_of($$ select api.me_get((select token from second), '{}', '{}') $$),
          'PT401 unauthorized', 'a token stops working at once after logout');
select is(test.error_of($$ select api.auth_logout((select token from second), '{}', '{}') $$),
          'PT401 unauthorized', 'logging out twice is 401');

select * from finish();
rollback;
