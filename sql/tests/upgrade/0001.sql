-- Data present when 0002 arrives: accounts, tokens, failed logins.
insert into app.users (id, email, password_hash, display_name)
values ('11111111-1111-4111-8111-111111111111', 'early@example.com', crypt('correct horse', gen_salt('bf', 4)), 'Early'),
       ('22222222-2222-4222-8222-222222222222', 'second@example.com', crypt('correct horse', gen_salt('bf', 4)), 'Second');
insert into app.auth_tokens (digest, user_id, expires_at)
values (sha256('early-token'), '11111111-1111-4111-8111-111111111111', now() + interval '30 days');
insert into app.login_failures (email) values ('early@example.com');
