-- Strangers cannot lock an owner out: a signed-in owner who proves the password, and a right
-- current reset code, work however many failures strangers recorded for the email; a code is
-- void after 5 wrong guesses; one address's wrong codes across all accounts meet two steps (a
-- first guess per email only, then a ceiling).
begin;
select plan(18);
select test.new_user('own');
select test.new_user('mine');
select test.new_user('gone');
update app.auth_settings set max_reset_mails = 10;  -- more codes than 3 an hour are asked for here
create function pg_temp.confirm(email text, code text, address text) returns api.reply language sql as $$
    select api.auth_password_reset_confirm(null, jsonb_build_object('client_ip', address),
        jsonb_build_object('email', email, 'code', code, 'new_password', 'fresh horse'))
$$;
-- 200 strangers' failures for each email: wrong sign-ins and wrong codes from 100 addresses each.
insert into app.login_failures (email, client_ip, kind)
select e || '@example.com', ('203.0.113.' || a)::inet, k
from unnest(array['own', 'mine', 'gone']) e, generate_series(1, 100) a, unnest(array['login', 'code']) k;

select is((api.me_password_update(test.token('own'), '{"client_ip": "198.51.100.1"}',
                                  '{"current_password": "correct horse", "new_password": "new horse 1"}')).status, null,
          'the owner changes the password while 200 strangers'' failures are recorded for the email');
select is((api.me_email_update(test.token('own'), '{"client_ip": "198.51.100.1"}',
                               '{"password": "new horse 1", "email": "own2@example.com"}')).code, null,
          '... and asks to change the email');
select is((api.me_delete(test.token('gone'), '{"client_ip": "198.51.100.1"}', '{"password": "correct horse"}')).code, null,
          'the owner deletes the account while 200 strangers'' failures are recorded for the email');
select is((pg_temp.confirm('mine@example.com', test.reset_code('mine@example.com'), '198.51.100.1')).code, null,
          'the owner''s right reset code works while 200 strangers'' failures are recorded for the email');

-- A token holder guessing the password is throttled by its own failures only.
select api.me_password_update(test.token('own'), '{"client_ip": "198.51.100.9"}', '{"current_password": "wrong horse", "new_password": "new horse 2"}')
from generate_series(1, 10);
select is((api.me_delete(test.token('own'), '{"client_ip": "198.51.100.1"}', '{"password": "new horse 1"}')).code, 'too_many_attempts',
          'ten wrong current passwords given with the account''s own tokens are 429, even for the right one');
select is((select count(*)::integer from app.login_failures where email = 'own@example.com' and kind = 'password'), 10,
          '... counted as ''password'' failures, which nobody without a token can cause');

-- A code is void after 5 wrong guesses.
create temporary table mine_code on commit drop as select test.reset_code('mine@example.com') as code;
select pg_temp.confirm('mine@example.com', '0000000' || n, '192.0.2.' || n) from generate_series(1, 4) n;
select is((select failed_attempts from app.password_resets where digest = sha256(convert_to((select code from mine_code), 'UTF8'))), 4,
          'the code counts wrong guesses from any address');
select is((pg_temp.confirm('mine@example.com', (select code from mine_code), '198.51.100.1')).code, null,
          'after 4 wrong guesses the right code still works');
create temporary table next_code on commit drop as select test.reset_code('mine@example.com') as code;
select pg_temp.confirm('mine@example.com', '0000000' || n, '192.0.2.' || n) from generate_series(1, 5) n;
select is((pg_temp.confirm('mine@example.com', (select code from next_code), '198.51.100.1')).code, 'invalid_reset_code',
          'after 5 wrong guesses the code is void: even the right one is invalid_reset_code');
select is((pg_temp.confirm('mine@example.com', test.reset_code('mine@example.com'), '198.51.100.1')).code, null,
          '... and a new code works');

-- One address, wrong codes spread over many accounts: past 30 in the window only a first guess
-- at each email is checked; at 300 every code from there waits.
delete from app.login_failures;
select pg_temp.confirm('acct' || a || '@example.com', '1234567' || n, '192.0.2.200') from generate_series(1, 6) a, generate_series(1, 5) n;
select is((pg_temp.confirm('acct1@example.com', '12345678', '192.0.2.200')).code, 'too_many_attempts',
          'one address that checked 30 wrong codes spread over 6 accounts gets 429 for another guess at one of them');
select ok((pg_temp.confirm('acct1@example.com', '12345678', '192.0.2.200')).retry_after between 1 and 900, '... with Retry-After');
select is((pg_temp.confirm('acct7@example.com', '12345678', '192.0.2.200')).code, 'invalid_reset_code',
          '... while its first guess at another email is still checked (and counted)');
select is((pg_temp.confirm('mine@example.com', test.reset_code('mine@example.com'), '192.0.2.201')).code, null,
          '... and the owner''s right code from another address works');
insert into app.login_failures (email, client_ip, kind)
select 'spread' || n || '@example.com', '192.0.2.200', 'code' from generate_series(1, 269) n;
select is((pg_temp.confirm('acct8@example.com', '12345678', '192.0.2.200')).code, 'too_many_attempts',
          'at 300 wrong codes in the window every code from the address waits, a first guess too');
select pg_temp.confirm('acct' || a || '@example.com', '1234567' || a, '2001:db8:1:2::' || a) from generate_series(1, 30) a;
select is((pg_temp.confirm('acct9@example.com', '12345678', '2001:db8:1:2:ffff::1')).code, 'too_many_attempts',
          'an IPv6 /64 counts as one address');
select is((pg_temp.confirm('acct9@example.com', '12345678', '2001:db8:1:3::1')).code, 'invalid_reset_code',
          '... and the next /64 is another');
select is((select count(*)::integer from app.login_failures where client_ip = '2001:db8:1:2:ffff::1'), 0,
          'a refused (429) guess is not even checked or recorded');

select * from finish();
rollback;
