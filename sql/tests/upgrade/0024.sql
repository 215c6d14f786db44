-- Data after 0024: a mail of each state a sender leaves (sent, failed, queued for a retry) and an
-- event for one's own other devices, naming the token that caused it.
insert into app.outgoing_mail (recipient, subject, body, kind, params, state, attempts, next_attempt_at, last_error)
values ('first@example.com', 'Your Focus Island password reset code', 'Your code is 12345678.', 'password_reset',
        '{"code": "12345678", "minutes": 15}', 'queued', 1, now() + interval '1 minute', '451: try again later');
insert into app.outgoing_mail (recipient, subject, body, kind, state, attempts, failed_at, last_error)
values ('nobody@example.com', 'Hello', '(failed)', 'message', 'failed', 1, now(), '550: RCPT failed: 550');
insert into app.events (user_id, type, payload, origin_token)
values ('11111111-1111-4111-8111-111111111111', 'session.started',
        '{"session_id": "33333333-3333-4333-8333-333333333333"}', gen_random_uuid());
