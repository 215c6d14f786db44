-- Deleting an account on the web: a request answers alike for known and unknown emails after
-- the same one insert; the mailer mails a known live email a code (the reset's throttle); a
-- wrong code is one 400 and counted; the right code leaves DELETE /me's tombstone and an audit
-- row; the code works once; sign-in is refused afterwards.
begin;
select plan(22);
select test.new_user(name) from unnest(array['wdel', 'keep', 'mod']) as name;
insert into app.moderators (user_id) values (test.uid('mod'));
select test.session('wdel', test.day_start(), 30);
select api.users_report_create(test.token('keep'), jsonb_build_object('id', test.uid('wdel')), '{"reason": "spam"}');
select api.me_update(test.token('wdel'), '{}', '{"display_name": "Wanda"}');

create function pg_temp.code(address text) returns text language sql as $$
    select substring(body from 'Your code is (\d{8})') from app.outgoing_mail
    where recipient = address and subject ~ 'deletion code' order by id desc limit 1
$$;
create function pg_temp.confirm(address text, code text, ip text default '192.0.2.7') returns text language sql as $$
    select test.answer_of(format($f$ select api.account_deletion_confirm(null, %L, %L) $f$,
                                 jsonb_build_object('client_ip', ip), jsonb_build_object('email', address, 'code', code)))
$$;

select is((api.account_deletion_create(null, '{}', '{"email": "wdel@example.com"}')).status,
          (api.account_deletion_create(null, '{}', '{"email": "nobody@example.com"}')).status,
          'a known and an unknown email get the same status');
select is((select count(*)::integer from app.account_deletion_requests), 2, '... after one queued row each');
select is(pg_temp.code('wdel@example.com'), null, 'nothing is mailed while the request waits for the mailer');
select is(test.error_of($$ select api.account_deletion_create(null, '{}', '{"email": "not an email"}') $$), 'PT400 invalid_email',
          'a malformed email is 400 invalid_field');
select is(test.error_of($$ select api.account_deletion_create(null, '{}', '{"email": "a@example.com", "x": 1}') $$), 'PT400 invalid_field',
          'an unknown field is refused');
select is(app.send_deletion_codes(), 2, 'the mailer''s step takes both requests');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'nobody@example.com'), 0, 'an unknown email gets no mail');
select ok(pg_temp.code('wdel@example.com') ~ '^\d{8}$', 'a known email gets an 8-digit code');
select is((select count(*)::integer from app.account_deletion_codes where digest = sha256(convert_to(pg_temp.code('wdel@example.com'), 'UTF8'))),
          1, 'only the code''s digest is stored');

-- the reset's mail throttle: max_reset_mails codes per window
update app.auth_settings set max_reset_mails = 2;
select api.account_deletion_create(null, '{}', '{"email": "wdel@example.com"}') from generate_series(1, 2);
select app.send_deletion_codes();
select is((select count(*)::integer from app.account_deletion_codes where user_id = test.uid('wdel')), 2,
          'at most max_reset_mails codes per window; more requests are answered alike and send nothing');

select is(pg_temp.confirm('wdel@example.com', '00000000'), 'PT400 invalid_deletion_code', 'a wrong code is 400 invalid_deletion_code');
select is((select failed_attempts from app.account_deletion_codes where user_id = test.uid('wdel') and used_at is null), 1,
          '... counted on the live code');
select is(pg_temp.confirm('nobody@example.com', '12345678'), 'PT400 invalid_deletion_code', 'an unknown email is the same 400');
select is((select display_name from app.users where id = test.uid('wdel')), 'Wanda', '... and nothing was deleted');
select is(test.error_of($$ select api.account_deletion_confirm(null, '{}', '{"email": "wdel@example.com"}') $$), 'PT400 invalid_field',
          'the code is required');

select is(pg_temp.confirm('wdel@example.com', pg_temp.code('wdel@example.com')), 'ok', 'the right code deletes the account');
select is((select (email, password_hash, display_name, deleted_at is not null)::text from app.users where id = test.uid('wdel')),
          '(,,"Deleted user",t)', 'the same tombstone as DELETE /me: no email, password or name');
select is((select count(*)::integer from app.focus_sessions where user_id = test.uid('wdel')), 1, 'the anonymous sessions stay');
select is((select count(*)::integer from app.user_reports where reported = test.uid('wdel'))
          + (select count(*)::integer from app.display_name_history where user_id = test.uid('wdel'))
          + (select count(*)::integer from app.account_deletion_codes where user_id = test.uid('wdel'))
          + (select count(*)::integer from app.auth_tokens where user_id = test.uid('wdel')), 0,
          'reports about it, its name history, codes and tokens are gone');
select is((select (via, deleted_by)::text from app.account_deletions where user_id = test.uid('wdel')), '(web,postgres)',
          'an audit row says it was deleted on the web');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "wdel@example.com", "password": "correct horse"}') $$),
          'PT401 invalid_credentials', 'signing in is refused afterwards');
select is(pg_temp.confirm('wdel@example.com', '12345678'), 'PT400 invalid_deletion_code', 'a deleted account''s address has no code');
select * from finish();
rollback;
