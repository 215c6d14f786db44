-- Deletion requests are bounded per email, like the reset's mails: at most max_reset_mails (3)
-- requests of one email wait for the mailer, known email or not, and the mailer mails one
-- account at most max_reset_mails codes per reset_mail_window. So the 4th request for one
-- email in the window queues no further request, code or mail, whether the mailer ran between
-- the requests or not; every answer is the same page. Nothing counts by address: another email
-- asked from the same address is queued and mailed.
begin;
select plan(12);
select test.new_user(name) from unnest(array['often', 'other']) as name;

create function pg_temp.ask(address text, ip text default '192.0.2.44') returns text language sql as $$
    select test.answer_of(format($f$ select api.account_deletion_create(null, %L, %L) $f$,
                                 jsonb_build_object('client_ip', ip), jsonb_build_object('email', address)))
$$;
create function pg_temp.waiting(address text) returns integer language sql as $$
    select count(*)::integer from app.account_deletion_requests where email = address
$$;
create function pg_temp.mails(address text) returns integer language sql as $$
    select count(*)::integer from app.outgoing_mail where recipient = address and subject ~ 'deletion code'
$$;

-- Four requests in a row, before the mailer runs.
select is(array_agg(pg_temp.ask(e)), array['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
          'four requests for a known and four for an unknown email are all answered alike')
from (select e from unnest(array['often@example.com', 'nobody@example.com']) e, generate_series(1, 4)) x;
select is(pg_temp.waiting('often@example.com'), 3, 'the 4th request for a known email queues nothing');
select is(pg_temp.waiting('nobody@example.com'), 3, '... nor for an unknown one: the same bound, so it tells nothing');
select app.send_deletion_codes();
select is(pg_temp.mails('often@example.com'), 3, 'three requests: three mails');
select is((select count(*)::integer from app.account_deletion_codes where user_id = test.uid('often')), 3, '... and three codes');

-- The 4th after the mailer ran, within the window: answered alike, no further code or mail.
select is(pg_temp.ask('often@example.com'), 'ok', 'a 4th request within the window is answered alike');
select app.send_deletion_codes();
select is(pg_temp.mails('often@example.com'), 3, '... and queues no further mail');
select is((select count(*)::integer from app.account_deletion_codes where user_id = test.uid('often')), 3, '... nor code');

-- The bound is the email's: the same address still asks for another email (a school's NAT).
select is(pg_temp.ask('other@example.com'), 'ok', 'another email from the same address is answered');
select app.send_deletion_codes();
select is(pg_temp.mails('other@example.com'), 1, '... and mailed its code');

-- After the window the account may ask again.
update app.account_deletion_codes set created_at = created_at - interval '61 minutes', expires_at = expires_at - interval '61 minutes'
where user_id = test.uid('often');
select is(pg_temp.ask('often@example.com'), 'ok', 'an hour later the account asks again');
select app.send_deletion_codes();
select is(pg_temp.mails('often@example.com'), 4, 'past reset_mail_window a request is mailed again');

select * from finish();
rollback;
