-- The operations views (sql/report/070_operations.sql) that the monitoring reads as
-- focus_monitor: the senders' due work and its age, the scheduled jobs failing or overdue; and
-- that focus_monitor reads those two views and nothing else.
begin;
select plan(12);
delete from app.outgoing_mail;
delete from app.password_reset_requests;
delete from app.account_deletion_requests;
delete from app.push_outbox;

create function pg_temp.backlog(which text) returns report.outbox_backlog language sql as $$
    select * from report.outbox_backlog b where b.outbox = which
$$;
select is((select array_agg(b.outbox || ' ' || b.due || ' ' || b.oldest_due_seconds || ' ' || b.unsent order by b.outbox)
           from report.outbox_backlog b),
          array['mail 0 0 0', 'push 0 0 0'], 'empty outboxes: nothing due, 0 seconds');

-- Mail: one due for 20 minutes, one retry not due before an hour from now, one claim gone stale
-- 5 minutes ago (claim_timeout 10 minutes), one being sent now, and a reset request 3 minutes old.
insert into app.outgoing_mail (recipient, subject, body, next_attempt_at) values
    ('due@example.com', 'Due', 'x', now() - interval '20 minutes'),
    ('later@example.com', 'Later', 'x', now() + interval '1 hour');
insert into app.outgoing_mail (recipient, subject, body, state, claimed_at, attempts) values
    ('stale@example.com', 'Stale', 'x', 'sending', now() - interval '15 minutes', 1),
    ('sending@example.com', 'Sending', 'x', 'sending', now(), 1);
insert into app.password_reset_requests (email, created_at) values ('reset@example.com', now() - interval '3 minutes');
select is((pg_temp.backlog('mail')).due, 3::bigint, 'mail: the due mail, the stale claim and the reset request are due');
select is(round((pg_temp.backlog('mail')).oldest_due_seconds), 1200::double precision, '... the oldest for 20 minutes');
select is((pg_temp.backlog('mail')).unsent, 4::bigint, '... four mails unsent in all');
update app.outgoing_mail set state = 'sent', sent_at = now() where recipient = 'due@example.com';
select is(round((pg_temp.backlog('mail')).oldest_due_seconds), 300::double precision,
          'sent: the oldest due is the stale claim, due since its claim_timeout ran out 5 minutes ago');

-- Push: one due 2 minutes ago, one held by quiet hours until tomorrow.
select test.new_user('ada');
select api.me_push_tokens_update(test.token('ada'), '{}', jsonb_build_object('token', repeat('ab', 32), 'platform', 'apns',
                                                                             'environment', 'sandbox'));
insert into app.push_outbox (token, event_id, type, data, send_after) values
    (repeat('ab', 32), 1, 'friend_request.received', '{}', now() - interval '2 minutes'),
    (repeat('ab', 32), 2, 'friend_request.received', '{}', now() + interval '10 hours');
select is(((pg_temp.backlog('push')).due, round((pg_temp.backlog('push')).oldest_due_seconds), (pg_temp.backlog('push')).unsent),
          (1::bigint, 120::double precision, 2::bigint), 'push: the quiet hours'' row is waiting but not due');

-- Jobs: one that raised at its last run, one no server has run for 10 minutes.
update app.scheduled_jobs set last_run_at = now(), next_run_at = now() + every, last_error = null;
update app.scheduled_jobs set last_error = 'division by zero' where name = 'prune';
update app.scheduled_jobs set next_run_at = now() - interval '10 minutes', last_run_at = now() - interval '11 minutes'
where name = 'settle_rooms';
select is((select array_agg(s.job order by s.job) from report.scheduled_job_status s where s.failing), array['prune'],
          'a job whose last run raised is failing');
select is((select array_agg(s.job || ' ' || round(s.overdue_seconds) order by s.job) from report.scheduled_job_status s
           where s.overdue_seconds > 0),
          array['settle_rooms 600'], 'a job past its next run by 10 minutes is overdue by 600 s, the others by 0');

-- focus_monitor: the two views, nothing else.
select is(test.error_as('focus_monitor', 'select * from report.outbox_backlog'), 'ok', 'focus_monitor reads the outbox backlog');
select is(test.error_as('focus_monitor', 'select * from report.scheduled_job_status'), 'ok', '... and the jobs');
select is(test.error_as('focus_monitor', 'select * from report.user_reports'), '42501', '... but no view of users'' data');
select is(test.error_as('focus_monitor', 'select * from app.outgoing_mail'), '42501', '... and no app table');

select * from finish();
rollback;
