-- Password reset behind one shared address (a school's NAT): a prober's wrong codes from the
-- address stop the prober, not the school. Past 30 wrong codes in 15 minutes a guess is checked
-- only if it is the address's first wrong guess at that email, so a student typing the code of
-- their own mail resets the password while the prober's repeated guesses are 429; the answers
-- are the same for an email with an account and one without; at 300 every code from there waits.
begin;
select plan(17);
select test.new_user(name) from unnest(array['kid', 'pal', 'typo', 'victim']) as name;
update app.auth_settings set max_reset_mails = 10;
create function pg_temp.confirm(email text, code text, address text default '192.0.2.80') returns api.reply language sql as $$
    select api.auth_password_reset_confirm(null, jsonb_build_object('client_ip', address),
        jsonb_build_object('email', email, 'code', code, 'new_password', 'fresh horse'))
$$;

select is((select (first_guess_only_after_code_failures, max_code_failures_per_address)::text from app.auth_settings), '(30,300)',
          'the two steps: a first guess per email only past 30 wrong codes, every code waits at 300');

-- The prober: 30 wrong codes from the school, 5 at each of 6 emails (accounts or not).
select pg_temp.confirm('probe' || a || '@example.com', '1234567' || n) from generate_series(1, 6) a, generate_series(1, 5) n;
select is((select count(*)::integer from app.login_failures where client_ip = '192.0.2.80' and kind = 'code'), 30,
          'the prober made 30 wrong codes from the school''s address');

-- Students at the same address reset their passwords with the code of their own mail.
select is((pg_temp.confirm('kid@example.com', test.reset_code('kid@example.com'))).status, null,
          'a student''s first, right code works from the same address');
select is(test.answer_of($$ select api.auth_login(null, '{"client_ip": "192.0.2.80"}', '{"email": "kid@example.com", "password": "fresh horse"}') $$),
          'ok', '... and the new password signs in there');
select is((pg_temp.confirm('pal@example.com', test.reset_code('pal@example.com'))).status, null, '... and so does another''s');

-- The prober's repeated guesses wait; its answers tell nothing about accounts.
select is((pg_temp.confirm('probe1@example.com', '12345678')).code, 'too_many_attempts',
          'the prober''s sixth guess at an email it already guessed is 429');
select ok((pg_temp.confirm('probe1@example.com', '12345678')).retry_after between 1 and 900, '... with Retry-After');
select is((select count(*)::integer from app.login_failures where client_ip = '192.0.2.80' and kind = 'code'), 30,
          '... not checked, not counted');
create temporary table victim_code on commit drop as select test.reset_code('victim@example.com') as code;
select is(array[(pg_temp.confirm('victim@example.com', '00000000')).code, (pg_temp.confirm('victim@example.com', '00000001')).code],
          array['invalid_reset_code', 'too_many_attempts'],
          'at an account with a live code: the first guess is checked, the second waits');
select is(array[(pg_temp.confirm('nobody@example.com', '00000000')).code, (pg_temp.confirm('nobody@example.com', '00000001')).code],
          array['invalid_reset_code', 'too_many_attempts'],
          '... exactly as at an email with no account (keyed by email and address, not by the code)');
select is((select failed_attempts from app.password_resets where digest = sha256(convert_to((select code from victim_code), 'UTF8'))), 1,
          'the refused guess did not touch the victim''s code');
select is((pg_temp.confirm('victim@example.com', (select code from victim_code), '198.51.100.5')).status, null,
          'the victim''s right code works from elsewhere');

-- A student whose first try was a typo waits for the window (or uses another network).
create temporary table typo_code on commit drop as select test.reset_code('typo@example.com') as code;
select is((pg_temp.confirm('typo@example.com', '99999999')).code, 'invalid_reset_code', 'a student''s typo is a checked wrong guess');
select is((pg_temp.confirm('typo@example.com', (select code from typo_code))).code, 'too_many_attempts',
          '... after which the same email waits at that address while it is past 30');
select is((pg_temp.confirm('typo@example.com', (select code from typo_code), '198.51.100.6')).status, null,
          '... and the code still works from another network');

-- The last resort: 300 wrong codes from the address in the window.
insert into app.login_failures (email, client_ip, kind)
select 'spread' || n || '@example.com', '192.0.2.80', 'code' from generate_series(1, 300 - 33) n;
select is((pg_temp.confirm('pal@example.com', test.reset_code('pal@example.com'))).code, 'too_many_attempts',
          'at 300 wrong codes from the address every code from there waits, a right first one too');
select ok((pg_temp.confirm('pal@example.com', '12345678')).retry_after between 1 and 900, '... with Retry-After');

select * from finish();
rollback;
