-- What focus-island mail records after a try (sql/app/030_mail.sql): accepted (sent, blanked),
-- refused for good (a 5xx: failed, never claimed again), refused for now (a 4xx: queued again
-- after a doubling delay, failed after max_attempts), bounced later (failed).
begin;
select plan(24);
delete from app.outgoing_mail;
insert into app.outgoing_mail (recipient, subject, body, kind, params) values
    ('ok@example.com', 'S', 'Your code is 12345678.', 'password_reset', '{"code": "12345678", "minutes": 15}'),
    ('gone@example.com', 'S', 'Your code is 23456789.', 'password_reset', '{"code": "23456789", "minutes": 15}'),
    ('busy@example.com', 'S', 'Your code is 34567890.', 'password_reset', '{"code": "34567890", "minutes": 15}');
create temp table ids as select recipient::text, id from app.claim_outgoing_mail(10);
create function pg_temp.id(recipient text) returns bigint language sql as $$ select i.id from ids i where i.recipient = id.recipient $$;
create function pg_temp.row(recipient text) returns app.outgoing_mail language sql as $$
    select m from app.outgoing_mail m where m.recipient = row.recipient::citext
$$;

-- Accepted.
select is(app.outgoing_mail_sent(pg_temp.id('ok@example.com')), true, 'an accepted mail is recorded');
select is(((pg_temp.row('ok@example.com')).state, (pg_temp.row('ok@example.com')).body, (pg_temp.row('ok@example.com')).params),
          ('sent'::text, '(sent)'::text, '{}'::jsonb), '... sent, with no code left in it');
select is((pg_temp.row('ok@example.com')).sent_at, now(), '... at now');
select is(app.outgoing_mail_sent(pg_temp.id('ok@example.com')), false, 'recording it twice changes nothing');

-- A 5xx answer: failed for good.
select is(app.outgoing_mail_failed(pg_temp.id('gone@example.com'), true, '550 5.1.1 mailbox unavailable'), 'failed',
          'a 550 fails the mail');
select is(((pg_temp.row('gone@example.com')).attempts, (pg_temp.row('gone@example.com')).last_error,
           (pg_temp.row('gone@example.com')).body, (pg_temp.row('gone@example.com')).params),
          (1, '550 5.1.1 mailbox unavailable'::text, '(failed)'::text, '{}'::jsonb), '... after one attempt, the answer kept, the code gone');
select is((pg_temp.row('gone@example.com')).failed_at, now(), '... failed now');
select is(app.outgoing_mail_failed(pg_temp.id('gone@example.com'), false, 'again'), null, 'a failed mail takes no more outcomes');
select is((select count(*)::integer from app.claim_outgoing_mail(10)), 0, 'and is never claimed again');

-- A 4xx answer: retried later, the delay doubling, at most max_attempts tries.
select is(app.outgoing_mail_failed(pg_temp.id('busy@example.com'), false, '451 4.3.0 try again later'), 'queued',
          'a 451 queues the mail again');
select is((pg_temp.row('busy@example.com')).next_attempt_at, now() + interval '1 minute', '... due in retry_delay (1 minute)');
select is((pg_temp.row('busy@example.com')).params ->> 'code', '34567890', '... still holding its code');
select is((select count(*)::integer from app.claim_outgoing_mail(10)), 0, '... and not claimed before then');
update app.outgoing_mail m set next_attempt_at = now() where m.recipient = 'busy@example.com';
select is((select attempts from app.claim_outgoing_mail(10)), 2, 'once due it is claimed again, attempt 2');
select is(app.outgoing_mail_failed(pg_temp.id('busy@example.com'), false, '421 closing'), 'queued', 'a second 4xx');
select is((pg_temp.row('busy@example.com')).next_attempt_at, now() + interval '2 minutes', '... waits twice as long');
update app.mail_settings set max_attempts = 3;
update app.outgoing_mail m set next_attempt_at = now() where m.recipient = 'busy@example.com';
select is((select attempts from app.claim_outgoing_mail(10)), 3, 'attempt 3');
select is(app.outgoing_mail_failed(pg_temp.id('busy@example.com'), false, '451 still busy'), 'failed',
          'a 4xx on the last of max_attempts fails it: never retried forever');

-- A mail the sender did not try goes back uncounted.
insert into app.outgoing_mail (recipient, subject, body) values ('later@example.com', 'S', 'B');
select is((select attempts from app.claim_outgoing_mail(10)), 1, 'a new mail claimed: attempt 1');
select is(app.outgoing_mail_release((select id from app.outgoing_mail where recipient = 'later@example.com'), 'not tried'), true,
          'released untried');
select is(((pg_temp.row('later@example.com')).state, (pg_temp.row('later@example.com')).attempts,
           (pg_temp.row('later@example.com')).next_attempt_at),
          ('queued'::text, 0, now() + interval '1 minute'), '... queued again, the attempt not counted, due after retry_delay');
select is(app.outgoing_mail_release((select id from app.outgoing_mail where recipient = 'later@example.com'), 'again'), false,
          'a row not claimed is not released');

-- A bounce after acceptance.
select is(app.outgoing_mail_bounced(pg_temp.id('ok@example.com'), '5.1.1 user unknown'), true, 'a later bounce is recorded');
select is(((pg_temp.row('ok@example.com')).state, (pg_temp.row('ok@example.com')).sent_at, (pg_temp.row('ok@example.com')).last_error),
          ('failed'::text, null::timestamptz, '5.1.1 user unknown'::text), '... as failed, with the report');

select * from finish();
rollback;
