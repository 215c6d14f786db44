-- 0015 account safety: strangers cannot lock an owner out, probe which emails have accounts,
-- or open stored answers; emails are verified before they find anyone (docs/security.md).

-- Failures are of three kinds: a wrong password at sign-in ('login'), a wrong reset code
-- ('code'), and a wrong current password given with the account's own token ('password', which
-- only a token holder can cause, so strangers' failures never throttle the signed-in owner).
alter table app.login_failures add column kind text not null default 'login'
    check (kind in ('login', 'code', 'password'));
create index login_failures_address_time on app.login_failures (client_ip, failed_at) where kind = 'code';

alter table app.auth_settings
    add column max_code_attempts integer not null default 5 check (max_code_attempts > 0),
    add column max_code_failures_per_address integer not null default 30
        check (max_code_failures_per_address > 0),
    add column max_taken_answers_per_address integer not null default 20
        check (max_taken_answers_per_address > 0),
    add column taken_answer_window interval not null default interval '1 hour'
        check (taken_answer_window > interval '0'),
    add column verification_code_ttl interval not null default interval '24 hours'
        check (verification_code_ttl between interval '1 minute' and interval '7 days');
comment on column app.auth_settings.max_code_attempts is
    'Wrong guesses after which a reset or verification code stops working (a new one can be asked for).';
comment on column app.auth_settings.max_code_failures_per_address is
    'Wrong reset codes allowed from one address (IPv6: its /64) across all emails within failed_login_window.';
comment on column app.auth_settings.max_taken_answers_per_address is
    'Sign-ups answered 409 email_taken allowed from one address (IPv6: its /64) within taken_answer_window; '
    'beyond it every sign-up from there is 429, so the 409 cannot enumerate accounts.';

-- A code counts its wrong guesses; at max_code_attempts it stops working.
alter table app.password_resets add column failed_attempts integer not null default 0 check (failed_attempts >= 0);

-- Emails are verified by a mailed code. Accounts that exist when this arrives count as verified
-- as of now (2026-12-01): they found each other before, nobody is mailed unasked, and a friend
-- link that worked yesterday keeps working.
alter table app.users add column email_verified_at timestamptz;
update app.users set email_verified_at = now() where deleted_at is null;

-- A code proving an address: the account's own unverified email, or an address it asked to
-- change to (the change takes effect when the code is confirmed). Only the digest is kept.
create table app.email_verifications (
    id               bigint generated always as identity primary key,  -- newest last, also within a transaction
    user_id          uuid not null references app.users on delete cascade,
    email            citext not null check (length(email) <= 254 and email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
    digest           bytea not null check (length(digest) = 32),
    created_at       timestamptz not null default now(),
    expires_at       timestamptz not null,
    used_at          timestamptz,
    failed_attempts  integer not null default 0 check (failed_attempts >= 0),
    check (expires_at > created_at)
);
create index email_verifications_user on app.email_verifications (user_id, id);

-- Sign-ups answered 409 email_taken, by address: their rate is limited (see the setting).
create table app.taken_email_answers (
    client_ip    inet,
    answered_at  timestamptz not null default now()
);
create index taken_email_answers_address_time on app.taken_email_answers (client_ip, answered_at);

-- POST /auth/password-reset only queues the email here, for every email alike, so a known and
-- an unknown address cost the request the same one insert; the mailer's
-- app.take_outgoing_mail() turns the queue into codes and mails (app.send_password_resets).
create table app.password_reset_requests (
    id          bigint generated always as identity primary key,
    email       citext not null,
    created_at  timestamptz not null default now()
);

-- The functions that mail them: app.send_password_resets and app.take_outgoing_mail
-- (sql/app/030_mail.sql).

-- Answers sealed before this migration were sealed with a key derived from the request alone,
-- which a database reader can test password guesses against: they go (a retry of one of them
-- runs again). From now on a sealed answer also needs a key the server holds outside the database.
delete from app.idempotency_keys where sealed_reply is not null;
comment on column app.idempotency_keys.sealed_reply is
    'pgp_sym_encrypt(reply, HMAC-SHA-256(the whole request, the server''s seal key)) for requests with secrets; '
    'the seal key never reaches the database''s tables.';
