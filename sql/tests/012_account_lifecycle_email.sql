-- Email verification: a code mailed at sign-up and for an email change; unverified addresses
-- are not found by friend requests (the answer of an unknown email); an email change takes
-- effect only once the new address is verified; a taken address answers alike.
begin;
select plan(30);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('friend');
create temporary table sq on commit drop as
select (api.auth_register(null, '{}', '{"email": "ceo@bigcorp.example", "password": "correct horse", "display_name": "The CEO"}')).body as account;
create function pg_temp.tok() returns text language sql as $$ select account ->> 'token' from sq $$;
create function pg_temp.uid() returns uuid language sql as $$ select (account -> 'user' ->> 'id')::uuid from sq $$;
create function pg_temp.code(address text) returns text language sql as $$
    select substring(body from 'Your code is (\d{8})') from app.outgoing_mail
    where recipient = address and subject ~ 'Confirm' order by id desc limit 1
$$;
create function pg_temp.verify(code text) returns text language sql as $$
    select test.answer_of(format($f$ select api.me_email_verification_confirm(%L, '{}', %L) $f$,
                                 pg_temp.tok(), jsonb_build_object('code', code)))
$$;
create function pg_temp.ask(email text) returns api.reply language sql as $$
    select api.friend_requests_create(test.token('friend'), '{}', jsonb_build_object('email', email))
$$;

-- sign-up
select is((select account -> 'user' -> 'email_verified' from sq), 'false', 'a new account''s email is not verified');
select ok(pg_temp.code('ceo@bigcorp.example') ~ '^\d{8}$', '... and a code to verify it is mailed to it');
select is((select count(*)::integer from app.email_verifications
           where user_id = pg_temp.uid() and digest = sha256(convert_to(pg_temp.code('ceo@bigcorp.example'), 'UTF8'))), 1,
          '... stored only as its SHA-256 digest');
select is(to_jsonb(pg_temp.ask('ceo@bigcorp.example')), to_jsonb(pg_temp.ask('nobody@bigcorp.example')),
          'a friend request to an unverified email answers exactly as to an unknown one (the squatter receives nothing)');
select is((select count(*)::integer from app.friendships f where pg_temp.uid() in (f.user_low, f.user_high)), 0, '... and makes no request');

-- verify
select is(pg_temp.verify('00000000'), 'PT400 invalid_verification_code', 'a wrong code is invalid_verification_code');
select is(test.error_of($$ select api.me_email_verification_confirm(null, '{}', '{"code": "1"}') $$), 'PT401 unauthorized', 'verifying needs a token');
select is(test.error_of(format($f$ select api.me_email_verification_confirm(%L, '{}', '{"code": 12345678}') $f$, pg_temp.tok())),
          'PT400 invalid_field', 'a code that is not a string is invalid_field');
select is(pg_temp.verify(pg_temp.code('ceo@bigcorp.example')), 'ok', 'the right code verifies the email');
select is((select email_verified_at is not null from app.users where id = pg_temp.uid()), true, '... which is now verified');
select is((pg_temp.ask('ceo@bigcorp.example')).code, null, '... and found by friend requests');
select is(pg_temp.verify(pg_temp.code('ceo@bigcorp.example')), 'PT400 invalid_verification_code', 'a used code is refused');
select is(test.error_of(format($f$ select api.me_email_verification_create(%L, '{}', null) $f$, pg_temp.tok())),
          'PT409 nothing_to_verify', 'a new code with nothing to verify is 409 nothing_to_verify');

-- change
update app.auth_settings set max_reset_mails = 10;
select is((select (p.body ->> 'email') || ' ' || (p.body ->> 'pending_email')
           from api.me_email_update(pg_temp.tok(), '{}', '{"password": "correct horse", "email": "ceo@new.example"}') p),
          'ceo@bigcorp.example ceo@new.example', 'an email change waits: the old email stays, the new one is pending');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "ceo@bigcorp.example", "password": "correct horse"}') $$), 'ok',
          '... the old email still signs in');
select is((pg_temp.ask('ceo@new.example')).code, 'user_not_found', '... and the new one finds nobody yet');
select is(pg_temp.verify('0000000' || n), 'PT400 invalid_verification_code') from generate_series(1, 5) n;
select is(pg_temp.verify(pg_temp.code('ceo@new.example')), 'PT400 invalid_verification_code', 'after 5 wrong guesses the code is void');
select is(test.answer_of(format($f$ select api.me_email_verification_create(%L, '{}', null) $f$, pg_temp.tok())), 'ok',
          'a new code is mailed on request');
select is(pg_temp.verify(pg_temp.code('ceo@new.example')), 'ok', 'the new code verifies the new address');
select is((select email::text from app.users where id = pg_temp.uid()), 'ceo@new.example', '... which becomes the email');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "ceo@new.example", "password": "correct horse"}') $$), 'ok',
          '... and signs in');

-- a taken address: answered alike, its owner gets a notice, no code goes anywhere
select is((api.me_email_update(pg_temp.tok(), '{}', '{"password": "correct horse", "email": "FRIEND@example.com"}')).body ->> 'pending_email',
          'FRIEND@example.com', 'an address another account has is pending like any other');
select is((select subject from app.outgoing_mail where recipient = 'friend@example.com' order by id desc limit 1),
          'Someone tried to use your address at Focus Island', '... its owner is mailed a notice, not a code');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'friend@example.com' and subject ~ 'Confirm'), 1,
          '... (its only code is its own sign-up''s), so the asker can never verify the address');

-- a right reset code proves the mailbox: the email counts as verified
select api.auth_register(null, '{}', '{"email": "real@owner.example", "password": "correct horse", "display_name": "Real"}');
select api.auth_password_reset_create(null, '{}', '{"email": "real@owner.example"}');
select app.send_password_resets();
select api.auth_password_reset_confirm(null, '{}', jsonb_build_object('email', 'real@owner.example', 'new_password', 'fresh horse',
    'code', (select substring(body from 'Your code is (\d{8})') from app.outgoing_mail
             where recipient = 'real@owner.example' and subject ~ 'password reset' order by id desc limit 1)));
select is((select email_verified_at is not null from app.users where email = 'real@owner.example'), true,
          'a right reset code verifies the email (the real owner of a squatted address takes it over)');

select * from finish();
rollback;
