-- The hourly prune (api.events_prune, from the server's listener) also deletes sign-in failures
-- after 30 days, sign-in addresses 90 days after their last success and mail 30 days after it
-- was written (app.retention_settings), never inside the windows throttling reads. Retention is
-- a rolling age, so fixtures are ages from now() (no calendar day or week is involved).
begin;
select plan(8);
select test.new_user('ret');
insert into app.login_failures (email, client_ip, failed_at)
values ('ret@example.com', '203.0.113.1', now() - interval '31 days'), ('ret@example.com', '203.0.113.2', now() - interval '29 days'),
       ('stranger@example.com', '203.0.113.3', now() - interval '31 days');
insert into app.login_addresses (user_id, client_ip, last_success_at)
values (test.uid('ret'), '198.51.100.1', now() - interval '91 days'), (test.uid('ret'), '198.51.100.2', now() - interval '89 days');
insert into app.outgoing_mail (recipient, subject, body, created_at, sent_at)
values ('ret@example.com', 'old', '(sent)', now() - interval '31 days', now() - interval '31 days'),
       ('ret@example.com', 'never sent', 'code 12345678', now() - interval '31 days', null),
       ('ret@example.com', 'recent', '(sent)', now() - interval '29 days', now() - interval '29 days');

select is(test.error_as('focus_api', $$ select api.events_prune() $$), 'ok', 'the server''s hourly prune runs as focus_api');
select is((select array_agg(host(client_ip) order by client_ip) from app.login_failures where email in ('ret@example.com', 'stranger@example.com')),
          array['203.0.113.2'], 'sign-in failures older than 30 days are gone, for any email');
select is((select array_agg(host(client_ip)) from app.login_addresses where user_id = test.uid('ret')),
          array['198.51.100.2'], 'sign-in addresses unused for 90 days are gone');
select is((select array_agg(subject) from app.outgoing_mail where recipient = 'ret@example.com'), array['recent'],
          'mail written more than 30 days ago is gone, sent or not');
select is((select user_id from app.login_failures where email = 'ret@example.com'), test.uid('ret'),
          'a failure is linked to the account holding its email (erased with it)');
select is((select user_id from app.outgoing_mail where recipient = 'ret@example.com'), test.uid('ret'),
          '... and so is mail');

-- Pruning never reads less than throttling does: a longer window or known-address time wins.
update app.retention_settings set login_failures = interval '1 day', login_addresses = interval '1 day';
update app.auth_settings set failed_login_window = interval '40 days', known_address_ttl = interval '95 days';
insert into app.login_failures (email, client_ip, failed_at) values ('ret@example.com', '203.0.113.4', now() - interval '39 days');
insert into app.login_addresses (user_id, client_ip, last_success_at) values (test.uid('ret'), '198.51.100.3', now() - interval '94 days');
select api.events_prune();
select is((select count(*)::integer from app.login_failures where email = 'ret@example.com'), 2,
          'failures inside failed_login_window stay, whatever the retention');
select is((select count(*)::integer from app.login_addresses where user_id = test.uid('ret')), 2,
          'addresses inside known_address_ttl stay, whatever the retention');

select * from finish();
rollback;
