-- Data present when 0016 arrives (its backfill links rows to accounts by today's addresses and
-- by 'user:<id>' scopes): a failed login and an Idempotency-Key under each kind of scope.
insert into app.login_failures (email, client_ip) values ('second@example.com', '203.0.113.5'), ('nobody@example.com', null);
insert into app.idempotency_keys (scope, key, route, request_digest, reply)
values ('user:11111111-1111-4111-8111-111111111111', 'upgrade-1', 'api.me_update', sha256('upgrade-1'), '{"status": 200}'),
       ('email:second@example.com', 'upgrade-2', 'api.auth_password_reset_create', sha256('upgrade-2'), '{"status": 202}');
