-- Sign-in behind one shared address (a school's NAT): only sign-in failures count toward the
-- sign-in limits, so a schoolmate's wrong reset codes, a token holder's wrong passwords and
-- taken-email probes never stop anyone's sign-in; a schoolmate's wrong passwords for one email
-- stop that email there for the window (the limit per email and address), nobody else's.
begin;
select plan(8);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user(name) from unnest(array['tia', 'uma', 'vic']) as name;

create function pg_temp.login(email text, address text, password text default 'correct horse') returns api.reply language sql as $$
    select api.auth_login(null, jsonb_build_object('client_ip', address),
                          jsonb_build_object('email', email, 'password', password))
$$;

select is((pg_temp.login('tia@example.com', '192.0.2.60')).status, null, 'Tia signs in at school');

-- The prober at the school: 40 wrong codes at Tia's email (reset, deletion or sign-up codes
-- are one kind), and 60 more from everywhere else; a thief's 10 wrong current passwords.
insert into app.login_failures (email, client_ip, kind)
select 'tia@example.com', '192.0.2.60', 'code' from generate_series(1, 40)
union all
select 'tia@example.com', ('203.0.113.' || n)::inet, 'code' from generate_series(1, 60) n
union all
select 'uma@example.com', '198.51.100.9', 'password' from generate_series(1, 10);
select is((pg_temp.login('tia@example.com', '192.0.2.60')).status, null,
          'Tia still signs in at school after 40 wrong codes for her email from there');
select is((pg_temp.login('tia@example.com', '198.51.100.30')).status, null,
          '... and from a new address after 100 wrong codes for her email from everywhere (not sign-in failures)');
select is((pg_temp.login('uma@example.com', '198.51.100.9')).status, null,
          'ten wrong current passwords given with a token do not count toward sign-in either');

-- The prober guesses Tia's password at the school.
select pg_temp.login('tia@example.com', '192.0.2.60', 'wrong horse') from generate_series(1, 10);
select is((pg_temp.login('tia@example.com', '192.0.2.60')).code, 'too_many_attempts',
          'ten wrong passwords for Tia from the school stop Tia there too for the window (the known limit: docs/security.md)');
select is((pg_temp.login('tia@example.com', '198.51.100.31')).status, null, '... not anywhere else');
select is((pg_temp.login('uma@example.com', '192.0.2.60')).status, null, '... and not her schoolmates at the same address');
select is((pg_temp.login('vic@example.com', '192.0.2.60')).status, null, '... any of them');

select * from finish();
rollback;
