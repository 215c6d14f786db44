-- POST /me/password and POST /me/email: the password is required, a wrong one changes nothing
-- (and counts as a failed login); a new password ends every other token.
begin;
select plan(17);
select test.new_user('pw');
select test.new_user('other');
create temporary table second on commit drop as
select (api.auth_login(null, '{}', '{"email": "pw@example.com", "password": "correct horse"}')).body ->> 'token' as token;
create function pg_temp.hash() returns text language sql as $$ select password_hash from app.users where id = test.uid('pw') $$;
create temporary table before on commit drop as select pg_temp.hash() as hash;

-- password
select is(test.answer_of($$ select api.me_password_update(test.token('pw'), '{}', '{"current_password": "wrong horse", "new_password": "new horse 1"}') $$),
          'PT403 wrong_password', 'a wrong current password is 403 wrong_password');
select is(pg_temp.hash(), (select hash from before), '... and the password is unchanged');
select is(test.error_of($$ select api.me_get((select token from second), '{}', '{}') $$), 'ok', '... and the other token still works');
select is((select count(*)::integer from app.login_failures where email = 'pw@example.com'), 1, '... and it counts as a failed login');
select is(test.error_of($$ select api.me_password_update(test.token('pw'), '{}', '{"current_password": "correct horse", "new_password": "short"}') $$),
          'PT400 weak_password', 'a new password under 8 characters is weak_password');
select is(test.error_of($$ select api.me_password_update(test.token('pw'), '{}', '{"current_password": "correct horse"}') $$),
          'PT400 invalid_field', 'the new password is required');
select is(pg_temp.hash(), (select hash from before), 'refused changes changed nothing');

select is(test.answer_of($$ select api.me_password_update(test.token('pw'), '{}', '{"current_password": "correct horse", "new_password": "new horse 1"}') $$),
          'ok', 'the right current password changes it');
select is(test.error_of($$ select api.me_get((select token from second), '{}', '{}') $$), 'PT401 unauthorized', 'every other token is revoked');
select is(test.error_of($$ select api.me_get(test.token('pw'), '{}', '{}') $$), 'ok', 'the calling token keeps working');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "pw@example.com", "password": "new horse 1"}') $$), 'ok',
          'the new password signs in');

-- email
select is(test.answer_of($$ select api.me_email_update(test.token('pw'), '{}', '{"password": "correct horse", "email": "pw2@example.com"}') $$),
          'PT403 wrong_password', 'changing the email with a wrong (the old) password is 403');
select is((select email::text from app.users where id = test.uid('pw')), 'pw@example.com', '... and the email is unchanged');
select is(test.error_of($$ select api.me_email_update(test.token('pw'), '{}', '{"password": "new horse 1", "email": "OTHER@example.com"}') $$),
          'PT409 email_taken', 'another account''s email (any case) is email_taken');
select is(test.error_of($$ select api.me_email_update(test.token('pw'), '{}', '{"password": "new horse 1", "email": "nope"}') $$),
          'PT400 invalid_email', 'a malformed email is invalid_email');
select is((api.me_email_update(test.token('pw'), '{}', '{"password": "new horse 1", "email": "PW2@example.com"}')).body ->> 'email',
          'PW2@example.com', 'the right password changes the email and answers the Profile');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "pw2@example.com", "password": "new horse 1"}') $$), 'ok',
          'the new email signs in');

select * from finish();
rollback;
