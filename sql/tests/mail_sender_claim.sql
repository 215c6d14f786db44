-- focus-island mail's claim (app.claim_outgoing_mail, sql/app/030_mail.sql): due mails, oldest
-- first, become 'sending' with one more attempt; a claimed row is not claimed again until its
-- claim goes stale; queued reset requests become mails first; the operator's own mailer
-- (app.take_outgoing_mail) takes only queued rows.
begin;
select plan(17);
select ok((select bool_and(app.new_mail_code() ~ '^[0-9]{8}$') from generate_series(1, 200)),
          'a mailed code (reset, deletion, verification) is 8 digits, leading zeros kept');
select test.new_user('mia');
delete from app.outgoing_mail;
insert into app.outgoing_mail (recipient, subject, body) values
    ('one@example.com', 'One', 'first'), ('two@example.com', 'Two', 'second'), ('three@example.com', 'Three', 'third');
insert into app.outgoing_mail (recipient, subject, body, next_attempt_at) values ('later@example.com', 'Later', 'not yet', now() + interval '1 minute');

create temp table first_claim as select * from app.claim_outgoing_mail(2);
select is((select array_agg(recipient::text order by id) from first_claim), '{one@example.com,two@example.com}',
          'a batch of 2: the two oldest due mails');
select is((select array_agg(distinct attempts) from first_claim), '{1}', '... each on its first attempt');
select is((select array_agg(distinct kind) from first_claim), '{message}', '... rendered as a plain message');
select is((select count(*)::integer from app.outgoing_mail m where m.state = 'sending' and m.claimed_at = now()), 2,
          '... and marked sending now');
select is((select array_agg(recipient::text order by id) from app.claim_outgoing_mail(10)), '{three@example.com}',
          'the next claim skips claimed rows and mails not due yet');
select is((select count(*)::integer from app.claim_outgoing_mail(10)), 0, 'then nothing is due');
select is((select count(*)::integer from app.claim_outgoing_mail(0)), 0, 'a batch of 0 claims nothing');

-- A claim older than claim_timeout (a sender that died) is taken again, as another attempt.
update app.outgoing_mail m set claimed_at = now() - interval '11 minutes' where m.recipient = 'one@example.com';
select is((select array_agg(recipient::text || ' ' || attempts) from app.claim_outgoing_mail(10)), '{"one@example.com 2"}',
          'a stale claim is claimed again, as attempt 2');
update app.outgoing_mail m set claimed_at = now() - interval '9 minutes' where m.recipient = 'two@example.com';
select is((select count(*)::integer from app.claim_outgoing_mail(10)), 0, 'a claim younger than claim_timeout stays');

-- A queued reset request becomes a mail of kind password_reset with its code in params.
insert into app.password_reset_requests (email) values ('mia@example.com');
create temp table reset as select * from app.claim_outgoing_mail(10);
select is((select kind from reset), 'password_reset', 'a reset request becomes a password_reset mail, claimed at once');
select ok((select params ->> 'code' ~ '^\d{8}$' and params ->> 'minutes' = '15' from reset), '... with the code and its minutes');
select is((select substring(body from 'code is (\d{8})') from reset), (select params ->> 'code' from reset),
          '... the same code as the plain body');
select is((select count(*)::integer from app.password_reset_requests), 0, '... and the request is gone');

-- Sign-up mail: the verification template with its code.
select test.new_user('neo');
select is((select m.kind || ' ' || (m.params ? 'code') || ' ' || (m.params ->> 'hours')
           from app.outgoing_mail m where m.recipient = 'neo@example.com'), 'email_verification true 24',
          'a sign-up writes an email_verification mail with the code and its hours');

-- The operator's own mailer takes queued rows only, and leaves no code behind.
select is((select array_agg(recipient::text) from app.take_outgoing_mail(10)), '{later@example.com,neo@example.com}',
          'take_outgoing_mail takes the queued rows (due or not), never claimed ones');
select is((select array_agg(m.state || ' ' || m.body || ' ' || m.params::text) from app.outgoing_mail m
           where m.recipient in ('later@example.com', 'neo@example.com')), '{"sent (sent) {}","sent (sent) {}"}',
          '... marked sent, body and params blanked');

select * from finish();
rollback;
