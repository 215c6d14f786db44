-- Password reset: always 202 alike after the same one insert; the mailer turns the queue into a
-- one-time code by mail (digest stored, 15 minutes, single use); wrong, expired and used codes
-- are one answer and count as 'code' failures.
begin;
select plan(21);
select test.new_user('rs');

-- The code in the newest reset mail to an address (what the operator's mailer would send).
create function pg_temp.code(address text) returns text language sql as $$
    select substring(body from 'Your code is (\d{8})') from app.outgoing_mail
    where recipient = address and subject ~ 'password reset' order by id desc limit 1
$$;
create function pg_temp.resets(address text) returns integer language sql as $$
    select count(*)::integer from app.outgoing_mail where recipient = address and subject ~ 'password reset'
$$;
create function pg_temp.confirm(code text, password text default 'fresh horse') returns text language sql as $$
    select test.answer_of(format($f$ select api.auth_password_reset_confirm(null, '{}', %L) $f$,
                                 jsonb_build_object('email', 'rs@example.com', 'code', code, 'new_password', password)))
$$;
-- What one request writes, by table: n_tup_ins of this transaction (pg_stat_xact_user_tables).
create function pg_temp.writes() returns jsonb language sql as $$
    select coalesce(jsonb_object_agg(relname, n_tup_ins + n_tup_upd + n_tup_del) filter (where n_tup_ins + n_tup_upd + n_tup_del > 0), '{}')
    from pg_stat_xact_user_tables where schemaname = 'app'
$$;

create temporary table before_known on commit drop as select pg_temp.writes() as w;
select is(api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}'),
          api.auth_password_reset_create(null, '{}', '{"email": "nobody@example.com"}'),
          'a known and an unknown email get exactly the same answer');
create temporary table after_both on commit drop as select pg_temp.writes() as w;
select is((select (a.w ->> 'password_reset_requests')::integer - coalesce((b.w ->> 'password_reset_requests')::integer, 0)
           from after_both a, before_known b) || ' ' || (select count(*) from jsonb_object_keys((select w from after_both)))
          || ' ' || (select count(*) from jsonb_object_keys((select w from before_known))),
          '2 ' || (select count(*) from jsonb_object_keys((select w from before_known))) + 1 || ' '
          || (select count(*) from jsonb_object_keys((select w from before_known))),
          'a reset request for a known and an unknown email does the same work: one queued row each, no other write (same time)');
select is((api.auth_password_reset_create(null, '{}', '{"email": "nobody@example.com"}'))::text, '(,,,,,)',
          '... the route''s 202 with no body');
select is(pg_temp.resets('rs@example.com'), 0, 'nothing is mailed while the request waits for the mailer');
select is(app.send_password_resets(), 3, 'the mailer''s step takes the three queued requests');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'nobody@example.com'), 0, 'nothing is sent to an unknown email');
select is(pg_temp.resets('rs@example.com'), 1, 'a known email gets one mail');
select ok(pg_temp.code('rs@example.com') ~ '^\d{8}$', '... with an 8-digit code');
select is((select count(*)::integer from app.password_resets where digest = sha256(convert_to(pg_temp.code('rs@example.com'), 'UTF8'))), 1,
          'the code is stored only as its SHA-256 digest');
select is(test.error_of($$ select api.auth_password_reset_create(null, '{}', '{}') $$), 'PT400 invalid_field', 'the email is required');

select is(pg_temp.confirm('00000000x'), 'PT400 invalid_reset_code', 'a wrong code is invalid_reset_code');
select is((select kind from app.login_failures where email = 'rs@example.com'), 'code', '... counted as a failed code');
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
select app.send_password_resets();
update app.password_resets set created_at = now() - interval '16 minutes', expires_at = now() - interval '1 minute'
where digest = sha256(convert_to(pg_temp.code('rs@example.com'), 'UTF8'));
select is(pg_temp.confirm(pg_temp.code('rs@example.com')), 'PT400 invalid_reset_code', 'an expired code is refused');

-- a new code ends the earlier one
update app.auth_settings set max_reset_mails = 10;
select api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}');
select app.send_password_resets();
create temporary table older on commit drop as select pg_temp.code('rs@example.com') as code;
select api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}');
select app.send_password_resets();
select is(pg_temp.confirm((select code from older)), 'PT400 invalid_reset_code', 'a code replaced by a newer one is refused');

-- at most max_reset_mails mails per account in reset_mail_window
update app.auth_settings set max_reset_mails = 4;
select api.auth_password_reset_create(null, '{}', '{"email": "rs@example.com"}');
select is((select count(*)::integer from app.take_outgoing_mail(100) m where m.recipient = 'rs@example.com' and m.subject ~ 'password reset' and m.body ~ 'Your code is \d{8}'), 4,
          'with max_reset_mails = 4 a fifth request sends nothing; the mailer takes the four mails with their code');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'rs@example.com' and (sent_at is null or body ~ '\d{8}')), 0,
          '... marked sent, no code left in clear');

select * from finish();
rollback;
