-- Data present when 0016 arrives (its backfill links rows to accounts by today's addresses and
-- by 'user:<id>' scopes): a failed login and an Idempotency-Key under each kind of scope.
insert into app.login_failures (email, client_ip) values ('second@example.com', '203.0.113.5'), ('nobody@example.com', null);
insert into app.idempotency_keys (scope, key, route, request_digest, reply)
values ('user:11111111-1111-4111-8111-111111111111', 'upgrade-1', 'api.me_update', sha256('upgrade-1'), '{"status": 200}'),
       ('email:second@example.com', 'upgrade-2', 'api.auth_password_reset_create', sha256('upgrade-2'), '{"status": 202}');

-- Data present when 0018 arrives: names its rule refuses (a right-to-left override, a zero-width
-- space, a decomposed letter, a combining flood, a name of nothing but invisible characters),
-- which it cleans before the constraint is checked, and a JPEG avatar with EXIF, which it strips.
insert into app.users (id, email, password_hash, display_name)
values ('18181818-1818-4818-8818-181818181801', 'rlo@example.com', crypt('correct horse', gen_salt('bf', 4)), U&'Ann\202Enimda'),
       ('18181818-1818-4818-8818-181818181802', 'zw@example.com', crypt('correct horse', gen_salt('bf', 4)), U&'Z\200Boe\0308'),
       ('18181818-1818-4818-8818-181818181803', 'zalgo@example.com', crypt('correct horse', gen_salt('bf', 4)), U&'Z\0336\0337\0338\0339algo'),
       ('18181818-1818-4818-8818-181818181804', 'empty@example.com', crypt('correct horse', gen_salt('bf', 4)), U&'\200B\2060');
insert into app.avatars (user_id, content_type, data)
values ('18181818-1818-4818-8818-181818181801', 'image/jpeg',
        '\xffd8ffe1000e457869660000475053000000ffda0008010100003f00d2cf20ffd9'::bytea);
