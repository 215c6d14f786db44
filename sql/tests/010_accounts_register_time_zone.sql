-- POST /auth/register {time_zone}: the person's days start in their own zone from day one;
-- a name PostgreSQL does not know is 400 and makes no account.
begin;
select plan(5);
update app.auth_settings set bcrypt_cost = 4;

select is((select r.body -> 'user' -> 'settings' ->> 'time_zone'
           from api.auth_register(null, '{}', '{"email": "ann@example.com", "password": "correct horse", "display_name": "Ann", "time_zone": "Asia/Tokyo"}') r),
          'Asia/Tokyo', 'a time zone given at sign-up is the account''s');
select is((select r.body -> 'user' -> 'settings' ->> 'time_zone'
           from api.auth_register(null, '{}', '{"email": "ben@example.com", "password": "correct horse", "display_name": "Ben"}') r),
          'UTC', 'left out, UTC');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "cy@example.com", "password": "correct horse", "display_name": "Cy", "time_zone": "Mars/Olympus"}') $$),
          'PT400 invalid_field', 'an unknown zone is invalid_field');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "cy@example.com", "password": "correct horse", "display_name": "Cy", "time_zone": 9}') $$),
          'PT400 invalid_field', 'a number is invalid_field');
select is((select count(*)::integer from app.users where email = 'cy@example.com'), 0, 'no account was made');

select * from finish();
rollback;
