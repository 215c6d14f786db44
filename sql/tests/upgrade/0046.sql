-- Data after 0046: rows the partitioning of app.login_failures (0047-0049), app.outgoing_mail
-- (0060-0061) and app.idempotency_keys (0062-0063) must carry over, some older than their
-- retention (kept in the partition of what came before, and deleted from it in batches), and a
-- mail still queued.
insert into app.login_failures (email, client_ip, failed_at)
values ('upgrade-failure@example.com', '192.0.2.46', now() - interval '1 hour'),
       ('upgrade-failure@example.com', '192.0.2.46', now() - interval '31 days');
insert into app.outgoing_mail (recipient, subject, body, created_at)
values ('upgrade-mail@example.com', 'queued before', 'hello', now() - interval '1 hour');
insert into app.outgoing_mail (recipient, subject, body, created_at, state, sent_at)
values ('upgrade-mail@example.com', 'sent before', '(sent)', now() - interval '31 days', 'sent', now() - interval '31 days');
insert into app.idempotency_keys (scope, key, route, request_digest, reply, created_at)
values ('email:upgrade-key@example.com', 'key-1', 'api.auth_login', '\x00', '{"status": 401}', now() - interval '1 hour'),
       ('email:upgrade-key@example.com', 'key-2', 'api.auth_login', '\x00', '{"status": 401}', now() - interval '25 hours');
