-- POST /me/password and POST /me/email: the password is required, a wrong one changes nothing
-- (and counts as a failed login); a new password ends every other token; a new email waits
-- for verification (012_account_lifecycle_email.sql).
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

-- email (more codes than max_reset_mails an hour are asked for here)
update app.auth_settings set max_reset_mails = 10;
select is(test.answer_of($$ select api.me_email_update(test.token('pw'), '{}', '{"password": "correct horse", "email": "pw2@example.com"}') $$),
          'PT403 wrong_password', 'changing the email with a wrong (the old) password is 403');
select is((select email::text from app.users where id = test.uid('pw')), 'pw@example.com', '... and the email is unchanged');
select is((api.me_email_update(test.token('pw'), '{}', '{"password": "new horse 1", "email": "OTHER@example.com"}')).body - 'pending_email',
          (api.me_email_update(test.token('pw'), '{}', '{"password": "new horse 1", "email": "free@example.com"}')).body - 'pending_email',
          'another account''s email (any case) answers exactly as a free one (no 409 to probe with)');
select is(test.error_of($$ select api.me_email_update(test.token('pw'), '{}', '{"password": "new horse 1", "email": "nope"}') $$),
          'PT400 invalid_email', 'a malformed email is invalid_email');
select is((select (p.body ->> 'email') || ' ' || (p.body ->> 'pending_email')
           from api.me_email_update(test.token('pw'), '{}', '{"password": "new horse 1", "email": "PW2@example.com"}') p),
          'pw@example.com PW2@example.com', 'the right password asks for the change: the old email stays, the new one is pending');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "pw@example.com", "password": "new horse 1"}') $$), 'ok',
          '... and the old email still signs in until the new one is verified');

select * from finish();
rollback;
