-- 0006 login throttle by address: failures are counted per email AND client address, so a
-- stranger's guesses from one address no longer lock the owner out from another; a looser
-- limit per email alone still slows a guess spread over many addresses, and it does not apply
-- to an address this account signed in from recently (so the owner at home is never locked
-- out by strangers; only a new address of theirs can meet it while an attack goes on).
-- The address comes from the HTTP layer (params.client_ip); null when unknown (in-process calls).
alter table app.login_failures add column client_ip inet;
create index login_failures_email_address_time on app.login_failures (email, client_ip, failed_at);

alter table app.auth_settings
    add column max_failed_logins_per_email integer not null default 50
        check (max_failed_logins_per_email > 0),
    add column known_address_ttl interval not null default interval '30 days'
        check (known_address_ttl > interval '0');
comment on column app.auth_settings.max_failed_logins is
    'Failures allowed per email and client address within failed_login_window.';
comment on column app.auth_settings.max_failed_logins_per_email is
    'Failures allowed per email from all addresses together within failed_login_window; '
    'addresses the account signed in from within known_address_ttl are exempt.';

-- Addresses each account signed in from, with the last time: they are exempt from the
-- per-email limit, so a lockout cannot be turned against the owner where they usually are.
create table app.login_addresses (
    user_id          uuid not null references app.users on delete cascade,
    client_ip        inet not null,
    last_success_at  timestamptz not null default now(),
    primary key (user_id, client_ip)
);
