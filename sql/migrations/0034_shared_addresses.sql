-- 0034 shared addresses: rules that survive a school's or campus's NAT, where hundreds of people
-- share one IPv4 address (api.address_bucket). One of them probing must not refuse the others
-- (docs/security.md, "Rules that count by address"; docs/decisions.md, 2026-12-05).

-- Wrong codes (reset, web deletion, sign-up) from one address, in two steps:
--   first_guess_only_after_code_failures (30, the old ceiling): from this many on, a guess is
--     checked only if it is the address's first wrong guess at that email in failed_login_window,
--     so a person typing the code of their own mail still gets in while a schoolmate guesses;
--   max_code_failures_per_address (30 until now, 300 from here): from this many on, every code
--     from the address is 429, the last resort against one address spreading guesses over
--     hundreds of emails. A DBA's own value other than 30 is kept (and bounds the first step).
alter table app.auth_settings
    add column first_guess_only_after_code_failures integer not null default 30
        check (first_guess_only_after_code_failures > 0),
    add column max_signup_mails_per_address integer not null default 1000
        check (max_signup_mails_per_address > 0);
update app.auth_settings set max_code_failures_per_address = 300 where max_code_failures_per_address = 30;
alter table app.auth_settings alter column max_code_failures_per_address set default 300;
update app.auth_settings
set first_guess_only_after_code_failures = least(first_guess_only_after_code_failures, max_code_failures_per_address);
alter table app.auth_settings add constraint auth_settings_code_failure_steps
    check (first_guess_only_after_code_failures <= max_code_failures_per_address);
comment on column app.auth_settings.first_guess_only_after_code_failures is
    'Wrong codes from one address (IPv6: its /64) within failed_login_window after which a guess is checked only if '
    'it is the address''s first wrong guess at that email in the window (else 429).';
comment on column app.auth_settings.max_code_failures_per_address is
    'Wrong codes from one address (IPv6: its /64) across all emails within failed_login_window after which every '
    'code from there is 429: sized for a NAT (300 since 0034), the last resort against guesses spread over many emails.';
comment on column app.auth_settings.max_taken_answers_per_address is
    'Sign-ups answered 409 email_taken allowed from one address (IPv6: its /64) within taken_answer_window; '
    'beyond it a sign-up is answered 202 with a code mailed (app.signup_codes), taken email or not (since 0034).';
comment on column app.auth_settings.max_signup_mails_per_address is
    'Sign-up code mails (and notices to taken addresses) one address (IPv6: its /64) may cause within '
    'taken_answer_window; beyond it every sign-up from there without a code is 429.';

-- A sign-up code mailed while the asking address is over its 409 budget: one row per mail, to a
-- free email (the code itself) or a taken one (the holder gets a notice; the code is mailed to
-- nobody). Only the digest is kept. The rows also count the mails per recipient and per address.
create table app.signup_codes (
    id               bigint generated always as identity primary key,  -- newest last, also within a transaction
    email            citext not null check (length(email) <= 254 and email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
    client_ip        inet,  -- the asking address's bucket (api.address_bucket); null when unknown
    digest           bytea not null check (length(digest) = 32),
    created_at       timestamptz not null default now(),
    expires_at       timestamptz not null,
    used_at          timestamptz,
    failed_attempts  integer not null default 0 check (failed_attempts >= 0),
    check (expires_at > created_at)
);
create index signup_codes_email on app.signup_codes (email, id);
create index signup_codes_address_time on app.signup_codes (client_ip, created_at);
create index signup_codes_time on app.signup_codes (created_at);  -- app.prune_personal_data
comment on table app.signup_codes is
    'Sign-up codes mailed while the asking address was over max_taken_answers_per_address (api.auth_register); '
    'deleted with the account of the email (api.erase_account_traces) and once no window reads them (app.prune_personal_data).';

-- The sign-up code's mail has a template of its own (mail/signup_code.txt and .html).
alter table app.outgoing_mail drop constraint outgoing_mail_kind_check,
    add constraint outgoing_mail_kind_check
        check (kind in ('message', 'password_reset', 'email_verification', 'address_taken', 'signup_code'));
