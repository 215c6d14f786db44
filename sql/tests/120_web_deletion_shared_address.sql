-- The web deletion page behind one shared address (a school's NAT): the reset's code rules, one
-- count for both kinds of code. After a prober's 30 wrong codes from the address, a student's
-- first, right deletion code still deletes; the prober's repeated guesses are 429, alike for an
-- email with an account and one without.
begin;
select plan(8);
select test.new_user(name) from unnest(array['leaver', 'victim']) as name;
create function pg_temp.confirm(email text, code text, address text default '192.0.2.90') returns text language sql as $$
    select test.answer_of(format($f$ select api.account_deletion_confirm(null, %L, %L) $f$,
                                 jsonb_build_object('client_ip', address), jsonb_build_object('email', email, 'code', code)))
$$;

-- The prober: 15 wrong reset codes and 15 wrong deletion codes from the school.
select api.auth_password_reset_confirm(null, '{"client_ip": "192.0.2.90"}',
                                       jsonb_build_object('email', 'probe' || n || '@example.com', 'code', '12345678', 'new_password', 'fresh horse'))
from generate_series(1, 15) n;
select pg_temp.confirm('probe' || n || '@example.com', '12345678') from generate_series(16, 30) n;
select is((select count(*)::integer from app.login_failures where client_ip = '192.0.2.90' and kind = 'code'), 30,
          'the prober made 30 wrong codes (reset and deletion, one count) from the school''s address');

select is(pg_temp.confirm('leaver@example.com', test.deletion_code('leaver@example.com')), 'ok',
          'a student''s first, right deletion code deletes the account from the same address');
select is((select deleted_at is not null from app.users where id = test.uid('leaver')), true, '... the account is the tombstone');

select is(pg_temp.confirm('probe16@example.com', '12345678'), 'PT429 too_many_attempts',
          'the prober''s second guess at an email from the address is 429');
create temporary table victim_code on commit drop as select test.deletion_code('victim@example.com') as code;
select is(array[pg_temp.confirm('victim@example.com', '00000000'), pg_temp.confirm('victim@example.com', '00000001')],
          array['PT400 invalid_deletion_code', 'PT429 too_many_attempts'],
          'at an account with a live code: the first guess is checked, the second waits');
select is(array[pg_temp.confirm('nobody@example.com', '00000000'), pg_temp.confirm('nobody@example.com', '00000001')],
          array['PT400 invalid_deletion_code', 'PT429 too_many_attempts'],
          '... exactly as at an email with no account');
select is((select deleted_at from app.users where id = test.uid('victim')), null, '... and the victim''s account stays');
select is(pg_temp.confirm('victim@example.com', (select code from victim_code), '198.51.100.7'), 'ok',
          'the victim''s right code works from elsewhere (their own choice to delete)');

select * from finish();
rollback;
