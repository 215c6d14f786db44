-- Sign-up cannot enumerate accounts: an address gets at most 20 answers 409 email_taken an hour;
-- then every sign-up from there is 429, taken email or not, so no answer tells more.
-- clock: any
begin;
select plan(6);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('taken');
create function pg_temp.register(email text, address text) returns api.reply language sql as $$
    select api.auth_register(null, jsonb_build_object('client_ip', address),
                             jsonb_build_object('email', email, 'password', 'correct horse', 'display_name', 'Probe'))
$$;

select is((pg_temp.register('taken@example.com', '192.0.2.50')).code, 'email_taken', 'a taken email is 409 email_taken');
select pg_temp.register('taken@example.com', '192.0.2.50') from generate_series(1, 19);
select is((pg_temp.register('taken@example.com', '192.0.2.50')).code || ' ' || (pg_temp.register('fresh@example.com', '192.0.2.50')).code,
          'too_many_attempts too_many_attempts',
          'after 20 email_taken answers an address gets 429 for taken and free emails alike (sign-up reveals no more accounts)');
select ok((pg_temp.register('fresh@example.com', '192.0.2.50')).retry_after between 1 and 3600, '... with Retry-After');
select is((select count(*)::integer from app.users where email = 'fresh@example.com'), 0, '... and creates nothing');
select is((pg_temp.register('fresh@example.com', '192.0.2.51')).status, null, 'another address signs up');
select pg_temp.register('taken@example.com', '2001:db8:7::' || n) from generate_series(1, 20) n;
select is((pg_temp.register('other@example.com', '2001:db8:7::ffff')).code, 'too_many_attempts', 'an IPv6 /64 counts as one address');

select * from finish();
rollback;
