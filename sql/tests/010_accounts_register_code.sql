-- Signing up with a mailed code (the step-up past an address's 409 budget): the code follows the
-- reset's rules (digest stored, 15 minutes, single use, the newest one only, void after 5 wrong
-- guesses, wrong codes counted per address); a wrong, expired or used code is one 400
-- invalid_signup_code; a malformed one is 400 invalid_field before anything is written; the
-- right one makes the account with the request's fields, its email verified, whether or not the
-- address is still over its budget.
begin;
select plan(25);
update app.auth_settings set bcrypt_cost = 4, max_reset_mails = 10;
select test.new_user('holder');
-- The school's address is over its budget: 20 answers 409 within the hour.
insert into app.taken_email_answers (client_ip) select '192.0.2.70' from generate_series(1, 20);
create function pg_temp.register(email text, code jsonb default null, address text default '192.0.2.70',
                                 password text default 'correct horse', display_name text default 'Student') returns api.reply language sql as $$
    select api.auth_register(null, jsonb_build_object('client_ip', address),
                             jsonb_build_object('email', email, 'password', password, 'display_name', display_name)
                             || jsonb_strip_nulls(jsonb_build_object('code', code)))
$$;
-- Everything a sign-up could write, to show that a refused one wrote nothing.
create function pg_temp.state() returns text language sql as $$
    select (select count(*) from app.users) || '/' || (select count(*) from app.signup_codes) || '/'
           || (select coalesce(sum(failed_attempts), 0) from app.signup_codes) || '/' || (select count(*) from app.login_failures)
           || '/' || (select count(*) from app.outgoing_mail) || '/' || (select count(*) from app.taken_email_answers)
$$;

select is((pg_temp.register('ann@example.com')).status, 202, 'past the budget a sign-up without a code is answered 202');
select is((select (email::text, client_ip, expires_at - created_at, used_at, failed_attempts)::text from app.signup_codes
           where email = 'ann@example.com'),
          '(ann@example.com,192.0.2.70,00:15:00,,0)', '... one code for the email and the address, living 15 minutes');

-- Malformed codes: 400 invalid_field, nothing written or counted.
create temporary table before_malformed on commit drop as select pg_temp.state() as s;
select is(test.error_of($$ select pg_temp.register('ann@example.com', '"1234"') $$), 'PT400 invalid_field', 'a code of 4 digits is invalid_field');
select is(test.error_of($$ select pg_temp.register('ann@example.com', '"1234abcd"') $$), 'PT400 invalid_field', '... so is one with letters');
select is(test.error_of($$ select pg_temp.register('ann@example.com', '12345678') $$), 'PT400 invalid_field', '... and a number instead of a string');
select is(test.error_of($$ select pg_temp.register('ann@example.com', '{"code": 1}') $$), 'PT400 invalid_field', '... and an object');
select is(test.error_of($$ select api.auth_register(null, '{"client_ip": "192.0.2.70"}',
                              '{"email": "ann@example.com", "password": "correct horse", "display_name": "Ann", "code": "12345678", "cod": 1}') $$),
          'PT400 invalid_field', 'an unknown key beside the code is refused');
select is(pg_temp.state(), (select s from before_malformed), '... and none of them wrote or counted anything');
select is(test.answer_of($$ select pg_temp.register('ann@example.com', to_jsonb(' ' || test.signup_code('ann@example.com') || ' ')) $$),
          'ok', 'spaces around the code are ignored (the right code signs up)');
select is((select email_verified_at is not null from app.users where email = 'ann@example.com'), true, '... with the email verified');

-- Wrong, used, expired and replaced codes: one 400 invalid_signup_code.
select pg_temp.register('bo@example.com');
create temporary table bo on commit drop as select test.signup_code('bo@example.com') as code;
select is(test.answer_of($$ select pg_temp.register('bo@example.com', to_jsonb(case when (select code from bo) = '00000000' then '11111111' else '00000000' end)) $$),
          'PT400 invalid_signup_code', 'a wrong code is 400 invalid_signup_code');
select is((select failed_attempts from app.signup_codes where email = 'bo@example.com'), 1, '... counted on the live code');
select is((select count(*)::integer from app.login_failures where email = 'bo@example.com' and kind = 'code' and client_ip = '192.0.2.70'), 1,
          '... and as a wrong code from the address (the reset''s count)');
select is((select count(*)::integer from app.users where email = 'bo@example.com'), 0, '... and no account is made');
select is(test.answer_of($$ select pg_temp.register('bo@example.com', to_jsonb((select code from bo)), '198.51.100.20', 'other horse', 'Bo') $$),
          'ok', 'the right code signs up, from any address');
select is((select (display_name, password_hash = crypt('other horse', password_hash))::text from app.users where email = 'bo@example.com'),
          '(Bo,t)', '... with the fields of the request that carried the code');
select is(test.answer_of($$ select pg_temp.register('bo@example.com', to_jsonb((select code from bo)), '198.51.100.20') $$),
          'PT400 invalid_signup_code', 'a used code is refused');
select is((select count(*)::integer from app.login_failures where email = 'bo@example.com' and kind = 'code' and client_ip = '198.51.100.20'), 0,
          '... but counts as no wrong guess: it was mailed to the email (a double submit''s second request)');

select pg_temp.register('cy@example.com');
update app.signup_codes set created_at = now() - interval '16 minutes', expires_at = now() - interval '1 minute' where email = 'cy@example.com';
select is(test.answer_of($$ select pg_temp.register('cy@example.com', to_jsonb(test.signup_code('cy@example.com')), '198.51.100.21') $$),
          'PT400 invalid_signup_code', 'an expired code is refused');
select pg_temp.register('cy@example.com');
create temporary table cy_older on commit drop as select test.signup_code('cy@example.com') as code;
select pg_temp.register('cy@example.com');
select is(test.answer_of($$ select pg_temp.register('cy@example.com', to_jsonb((select code from cy_older)), '198.51.100.21') $$),
          'PT400 invalid_signup_code', 'a code replaced by a newer one is refused');

select pg_temp.register('dee@example.com');
create temporary table dee on commit drop as select test.signup_code('dee@example.com') as code;
select pg_temp.register('dee@example.com', to_jsonb(lpad(((coalesce((select code from dee), '0')::bigint + n) % 100000000)::text, 8, '0')), '203.0.113.' || n)
from generate_series(1, 5) n;
select is(test.answer_of($$ select pg_temp.register('dee@example.com', to_jsonb((select code from dee)), '198.51.100.22') $$),
          'PT400 invalid_signup_code', 'after 5 wrong guesses from anywhere the code is void: even the right one is refused');

-- Whether or not the address is still over its budget.
select pg_temp.register('eve@example.com');
delete from app.taken_email_answers;
select is(test.answer_of($$ select pg_temp.register('eve@example.com', to_jsonb(test.signup_code('eve@example.com'))) $$), 'ok',
          'a code mailed while the address was over its budget still signs up once it is under');

-- The holder of a taken email: nobody has the code, and an account made since wins.
select is(test.answer_of($$ select pg_temp.register('holder@example.com', '"12345678"') $$), 'PT400 invalid_signup_code',
          'no code was mailed for a taken email: a guess is the same 400');
insert into app.taken_email_answers (client_ip) select '192.0.2.70' from generate_series(1, 20);
select pg_temp.register('fay@example.com');
select api.auth_register(null, '{"client_ip": "198.51.100.23"}', '{"email": "fay@example.com", "password": "correct horse", "display_name": "Fay"}');
select is(test.error_of($$ select pg_temp.register('fay@example.com', to_jsonb(test.signup_code('fay@example.com'))) $$), 'PT409 email_taken',
          'a right code for an email someone signed up with since is 409 email_taken');
select is((select count(*)::integer from app.users where email = 'fay@example.com'), 1, '... and changes nothing');

select * from finish();
rollback;
