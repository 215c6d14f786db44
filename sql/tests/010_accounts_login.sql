-- Login: one answer for unknown email and wrong password, failures recorded although the
-- login fails, throttling after 10 failures in 15 minutes, success clears the failures.
begin;
select plan(11);
select test.new_user('lin');

select is((api.auth_login(null, '{}', '{"email": "LIN@example.com", "password": "correct horse"}')).status, null,
          'the right password signs in, whatever the email''s letter case');
select is((api.auth_login(null, '{}', '{"email": "lin@example.com", "password": "wrong horse"}')).code,
          'invalid_credentials', 'a wrong password is invalid_credentials');
select is((api.auth_login(null, '{}', '{"email": "nobody@example.com", "password": "wrong horse"}')).code,
          'invalid_credentials', 'an unknown email gets the same answer');
select is((api.auth_login(null, '{}', '{"email": "nobody@example.com", "password": "wrong horse"}')).status,
          401, '... with status 401');
select is((select count(*)::integer from app.login_failures where email = 'lin@example.com'), 1,
          'the failed attempt is recorded although the login failed');

select api.auth_login(null, '{}', '{"email": "lin@example.com", "password": "wrong horse"}') from generate_series(1, 9);
select is((api.auth_login(null, '{}', '{"email": "lin@example.com", "password": "correct horse"}')).code,
          'too_many_attempts', 'after 10 failures even the right password is refused');
select ok((api.auth_login(null, '{}', '{"email": "lin@example.com", "password": "correct horse"}')).retry_after
          between 1 and 900, '... with a Retry-After within the 15-minute window');
select is((select count(*)::integer from app.login_failures where email = 'lin@example.com'), 10,
          'throttled attempts are not counted as failures');

update app.login_failures set failed_at = failed_at - interval '16 minutes';
select is((api.auth_login(null, '{}', '{"email": "lin@example.com", "password": "correct horse"}')).status, null,
          'once the window has passed the right password works again');
select is((select count(*)::integer from app.login_failures where email = 'lin@example.com'), 0,
          'a successful login clears the failures');

select is(test.error_of($$ select api.auth_login(null, '{}', '{"email": "lin@example.com"}') $$),
          'PT400 invalid_field', 'a missing password is 400 invalid_field');

select * from finish();
rollback;
