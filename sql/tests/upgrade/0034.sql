-- Data after 0034: a sign-up code mailed while an address was over its 409 budget, and the mail
-- of the new kind that carried it.
insert into app.signup_codes (email, client_ip, digest, expires_at)
values ('upgrade-signup@example.com', '192.0.2.34', sha256('12345678'::bytea), now() + interval '15 minutes');
insert into app.outgoing_mail (recipient, subject, body, kind, params)
values ('upgrade-signup@example.com', 'Your Focus Island sign-up code', 'Your code is 12345678.', 'signup_code',
        '{"code": "12345678", "minutes": 15}');
