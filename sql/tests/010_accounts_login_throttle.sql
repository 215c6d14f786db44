-- Login throttling by email and client address: a stranger's guesses from one address lock
-- that address out for that email, not the owner at another; guesses spread over many
-- addresses meet the looser per-email limit, which the owner's known address is exempt from.
begin;
select plan(10);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('tia');

create function pg_temp.login(address text, password text) returns api.reply language sql as $$
    select api.auth_login(null, jsonb_build_object('client_ip', address),
                          jsonb_build_object('email', 'tia@example.com', 'password', password))
$$;

select is((pg_temp.login('198.51.100.1', 'correct horse')).status, null, 'the owner signs in from home');
select is((select count(*)::integer from app.login_addresses where user_id = test.uid('tia') and client_ip = '198.51.100.1'),
          1, '... which becomes a known address of the account');

select pg_temp.login('203.0.113.9', 'wrong horse') from generate_series(1, 10);
select is((pg_temp.login('203.0.113.9', 'correct horse')).code, 'too_many_attempts',
          'ten failures from one address lock that address out for this email');
select is((pg_temp.login('198.51.100.2', 'correct horse')).status, null,
          'the owner still signs in from another address');
select is((select count(*)::integer from app.login_failures where email = 'tia@example.com' and client_ip = '203.0.113.9'),
          10, 'the owner''s success does not clear the stranger''s failures');

-- A guess spread over many addresses: 9 from each of 6 addresses = 54 > 50 in the window.
select pg_temp.login('203.0.113.' || (10 + a), 'wrong horse') from generate_series(1, 6) a, generate_series(1, 9);
select is((pg_temp.login('203.0.113.77', 'wrong horse')).code, 'too_many_attempts',
          'past 50 failures from all addresses together, a new address is throttled at once');
select ok((pg_temp.login('203.0.113.77', 'wrong horse')).retry_after between 1 and 900,
          '... with a Retry-After within the window');
select is((pg_temp.login('198.51.100.1', 'correct horse')).status, null,
          'the owner at a known address is exempt from the per-email limit');
select is((api.auth_login(null, '{"client_ip": "not an address"}',
                          '{"email": "tia@example.com", "password": "correct horse"}')).code, 'too_many_attempts',
          'a client_ip that is not an address counts as an unknown address, never as an error');
select is((pg_temp.login('2001:db8::1', 'correct horse')).code, 'too_many_attempts',
          'an unknown IPv6 address meets the per-email limit too');

select * from finish();
rollback;
