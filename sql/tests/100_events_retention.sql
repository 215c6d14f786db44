-- The hourly prune (the job prune, a step of it: api.job_step('prune')) also deletes sign-in failures
-- after 30 days, sign-in addresses 90 days after their last success and mail 30 days after it
-- was written unless it is still to be sent (app.retention_settings), never inside the windows throttling reads; reset
-- requests the mailer never took after reset_code_ttl, 409 email_taken counts after
-- taken_answer_window and sign-up codes once no window reads them. Retention is a rolling age, so fixtures are ages from now() (no calendar
-- day or week is involved).
begin;
select plan(16);
select test.new_user('ret');
delete from app.outgoing_mail where recipient = 'ret@example.com';  -- the sign-up's verification code
insert into app.login_failures (email, client_ip, failed_at)
values ('ret@example.com', '203.0.113.1', now() - interval '31 days'), ('ret@example.com', '203.0.113.2', now() - interval '29 days'),
       ('stranger@example.com', '203.0.113.3', now() - interval '31 days');
insert into app.login_addresses (user_id, client_ip, last_success_at)
values (test.uid('ret'), '198.51.100.1', now() - interval '91 days'), (test.uid('ret'), '198.51.100.2', now() - interval '89 days');
insert into app.outgoing_mail (recipient, subject, body, created_at, sent_at, state)
values ('ret@example.com', 'old', '(sent)', now() - interval '31 days', now() - interval '31 days', 'sent'),
       ('ret@example.com', 'never sent', 'code 12345678', now() - interval '31 days', null, 'queued'),
       ('ret@example.com', 'recent', '(sent)', now() - interval '29 days', now() - interval '29 days', 'sent');
insert into app.password_reset_requests (email, created_at)
values ('ret@example.com', now() - interval '16 minutes'), ('stranger@example.com', now() - interval '16 minutes'),
       ('ret@example.com', now() - interval '14 minutes');
insert into app.taken_email_answers (client_ip, answered_at)
values ('203.0.113.5', now() - interval '61 minutes'), ('203.0.113.6', now() - interval '59 minutes');
insert into app.signup_codes (email, client_ip, digest, created_at, expires_at)
values ('old.signup@example.com', '203.0.113.5', sha256('1'::bytea), now() - interval '61 minutes', now() - interval '46 minutes'),
       ('new.signup@example.com', '203.0.113.6', sha256('2'::bytea), now() - interval '59 minutes', now() - interval '44 minutes');

select is(test.error_as('focus_api', $$ select * from api.job_step('prune') $$), 'ok', 'the server''s hourly prune (a step of the job) runs as focus_api');
select is((select array_agg(host(client_ip) order by client_ip) from app.login_failures where email in ('ret@example.com', 'stranger@example.com')),
          array['203.0.113.2'], 'sign-in failures older than 30 days are gone, for any email');
select is((select array_agg(host(client_ip)) from app.login_addresses where user_id = test.uid('ret')),
          array['198.51.100.2'], 'sign-in addresses unused for 90 days are gone');
select is((select array_agg(subject order by subject) from app.outgoing_mail where recipient = 'ret@example.com'), array['never sent', 'recent'],
          'mail written more than 30 days ago is gone once sent; mail never sent stays, whatever its age');
select is((select user_id from app.login_failures where email = 'ret@example.com'), test.uid('ret'),
          'a failure is linked to the account holding its email (erased with it)');
select is((select user_id from app.outgoing_mail where recipient = 'ret@example.com' and subject = 'recent'), test.uid('ret'),
          '... and so is mail');
select is((select array_agg(created_at > now() - interval '15 minutes') from app.password_reset_requests), array[true],
          'reset requests older than a reset code lives (15 minutes) are gone, for any email');
select is((select user_id from app.password_reset_requests where email = 'ret@example.com'), test.uid('ret'),
          '... and a request is linked to the account holding its email (erased with it)');
select is((select array_agg(host(client_ip)) from app.taken_email_answers), array['203.0.113.6'],
          '409 email_taken counts older than taken_answer_window (1 hour) are gone');
select is((select array_agg(email::text) from app.signup_codes where email like '%.signup@example.com'), array['new.signup@example.com'],
          'sign-up codes older than the windows that count them (an hour per address and per email) are gone');

-- Pruning never reads less than throttling does: a longer window or known-address time wins.
update app.retention_settings set login_failures = interval '1 day', login_addresses = interval '1 day';
update app.auth_settings set failed_login_window = interval '40 days', known_address_ttl = interval '95 days',
                             reset_code_ttl = interval '1 hour', taken_answer_window = interval '1 day';
insert into app.login_failures (email, client_ip, failed_at) values ('ret@example.com', '203.0.113.4', now() - interval '39 days');
insert into app.login_addresses (user_id, client_ip, last_success_at) values (test.uid('ret'), '198.51.100.3', now() - interval '94 days');
insert into app.password_reset_requests (email, created_at) values ('ret@example.com', now() - interval '59 minutes');
insert into app.taken_email_answers (client_ip, answered_at) values ('203.0.113.7', now() - interval '23 hours');
select api.events_prune();  -- a DBA's: every prune at once
select is((select count(*)::integer from app.login_failures where email = 'ret@example.com'), 2,
          'failures inside failed_login_window stay, whatever the retention');
select is((select count(*)::integer from app.login_addresses where user_id = test.uid('ret')), 2,
          'addresses inside known_address_ttl stay, whatever the retention');
select is((select count(*)::integer from app.password_reset_requests), 2, 'reset requests inside a longer reset_code_ttl stay');
select is((select count(*)::integer from app.taken_email_answers), 2, '409 counts inside a longer taken_answer_window stay');
select is((select r.status || ' ' || r.code from api.auth_register(null, '{"client_ip": "203.0.113.7"}',
              '{"email": "ret@example.com", "password": "correct horse", "display_name": "Ret"}') r),
          '409 email_taken', 'a taken sign-up still answers 409 ...');
update app.auth_settings set max_taken_answers_per_address = 2;
select is((select r.status::text from api.auth_register(null, '{"client_ip": "203.0.113.7"}',
              '{"email": "nobody.yet@example.com", "password": "correct horse", "display_name": "Ret"}') r),
          '202', '... and the kept count still puts the address past its budget (a code mailed: pruning changed no answer)');

select * from finish();
rollback;
