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
        check (first_guess_only_after_code_failures > 0);
update app.auth_settings set max_code_failures_per_address = 300 where max_code_failures_per_address = 30;
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
