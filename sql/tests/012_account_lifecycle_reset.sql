-- Password reset: always 202 alike; a one-time code by mail (digest stored, 15 minutes, single
-- use); wrong, expired and used codes are one answer and count as failed logins.
begin;
select plan(21);
select test.new_user('rs');

-- The code in the newest mail to an address (what the operator's mailer would send).
create function pg_temp.code(address text) returns text language sql as $$
    select substring(body from 'Your code is (\d{8})') from app.outgoing_mail where recipient = address order by id desc limit 1
$$;
create function pg_temp.confirm(code text, password text default 'fresh horse') returns text language sql as $$
    select test.answer_of(format($f$ select api.auth_password_reset_confirm(null, '{}', %L) $f$,
                                 jsonb_build_object('email', 'rs@example.com', 'code', code, 'new_password', password)))
$$;

select is(api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}'),
          api.auth_password_reset_create(null, '{}', '{"email": "nobody@example.com"}'),
          'a known and an unknown email get exactly the same answer');
select is((api.auth_password_reset_create(null, '{}', '{"email": "nobody@example.com"}'))::text, '(,,,,,)',
          '... the route''s 202 with no body');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'nobody@example.com'), 0, 'nothing is sent to an unknown email');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'rs@example.com'), 1, 'a known email gets one mail');
select ok(pg_temp.code('rs@example.com') ~ '^\d{8}$', '... with an 8-digit code');
select is((select count(*)::integer from app.password_resets where digest = sha256(convert_to(pg_temp.code('rs@example.com'), 'UTF8'))), 1,
          'the code is stored only as its SHA-256 digest');
select is(test.error_of($$ select api.auth_password_reset_create(null, '{}', '{}') $$), 'PT400 invalid_field', 'the email is required');

select is(pg_temp.confirm('00000000x'), 'PT400 invalid_reset_code', 'a wrong code is invalid_reset_code');
select is((select count(*)::integer from app.login_failures where email = 'rs@example.com'), 1, '... counted as a failed login');
select is(test.error_of(format($f$ select api.auth_password_reset_confirm(null, '{}', %L) $f$,
                               jsonb_build_object('email', 'rs@example.com', 'code', pg_temp.code('rs@example.com'), 'new_password', 'short'))),
          'PT400 weak_password', 'a weak new password is refused before the code is checked');

create temporary table first_code on commit drop as select pg_temp.code('rs@example.com') as code;
select is(pg_temp.confirm((select code from first_code)), 'ok', 'the right code resets the password');
select is(test.error_of($$ select api.me_get(test.token('rs'), '{}', '{}') $$), 'PT401 unauthorized', '... and revokes the old tokens');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "rs@example.com", "password": "fresh horse"}') $$), 'ok',
          '... and the new password signs in');
select is(pg_temp.confirm((select code from first_code), 'other horse'), 'PT400 invalid_reset_code', 'a used code is refused');

-- expiry: a code older than 15 minutes
select api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}');
update app.password_resets set created_at = now() - interval '16 minutes', expires_at = now() - interval '1 minute'
where digest = sha256(convert_to(pg_temp.code('rs@example.com'), 'UTF8'));
select is(pg_temp.confirm(pg_temp.code('rs@example.com')), 'PT400 invalid_reset_code', 'an expired code is refused');

-- a new code ends the earlier one
update app.auth_settings set max_reset_mails = 10;
select api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}');
create temporary table older on commit drop as select pg_temp.code('rs@example.com') as code;
select api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}');
select is(pg_temp.confirm((select code from older)), 'PT400 invalid_reset_code', 'a code replaced by a newer one is refused');

-- at most max_reset_mails mails per account in reset_mail_window
update app.auth_settings set max_reset_mails = 4;
select is((select count(*)::integer from app.outgoing_mail where recipient = 'rs@example.com'), 4, 'four mails in the hour...');
select api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'rs@example.com'), 4,
          '... and with max_reset_mails = 4 a fifth request sends nothing, answered alike');

-- throttled like logins: 10 failures, then 429 even for the right code
insert into app.login_failures (email) select 'rs@example.com' from generate_series(1, 10);
select is(pg_temp.confirm(pg_temp.code('rs@example.com')), 'PT429 too_many_attempts', 'after 10 failures even the right code is 429');

-- the mailer takes unsent mail once and blanks the code
select is((select count(*)::integer from app.take_outgoing_mail(100) m where m.recipient = 'rs@example.com' and m.body ~ 'Your code is'), 4,
          'the mailer takes each unsent mail with its code');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'rs@example.com' and (sent_at is null or body ~ '\d{8}')), 0,
          '... marked sent, no code left in clear');

select * from finish();
rollback;
