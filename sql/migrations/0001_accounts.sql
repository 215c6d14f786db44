-- 0001 accounts: extensions, the privilege baseline, users, tokens and login throttling.

-- Trusted contrib extensions: the database owner may create them.
create extension if not exists pgcrypto with schema public;   -- crypt(), gen_salt(), gen_random_bytes()
create extension if not exists citext with schema public;     -- case-insensitive emails
create extension if not exists btree_gist with schema public; -- EXCLUDE constraints mixing = and &&

-- Nothing is reachable by default: each role gets exactly what the grants say.
revoke all on schema public from public;
alter default privileges revoke execute on functions from public;

-- Settings a DBA may change without a deploy. One row, enforced by the primary key check.
create table app.auth_settings (
    singleton            boolean primary key default true check (singleton),
    bcrypt_cost          integer not null check (bcrypt_cost between 4 and 15),
    token_ttl            interval not null check (token_ttl > interval '0'),
    max_failed_logins    integer not null check (max_failed_logins > 0),
    failed_login_window  interval not null check (failed_login_window > interval '0')
);
comment on table app.auth_settings is
    'Authentication knobs. bcrypt cost 10 (about 60 ms of database CPU here): the OWASP floor for '
    'bcrypt, and still ~30 logins/s per core, far above what a study app sees.';
insert into app.auth_settings (bcrypt_cost, token_ttl, max_failed_logins, failed_login_window)
values (10, interval '30 days', 10, interval '15 minutes');

create table app.users (
    id                 uuid primary key default gen_random_uuid(),
    email              citext not null unique
                       check (length(email) <= 254 and email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
    password_hash      text not null check (password_hash like '$2_$%'),
    display_name       text not null
                       check (display_name = btrim(display_name) and length(display_name) between 1 and 40
                              and display_name !~ '[[:cntrl:]]'),
    show_tip_on_timer  boolean not null default true,
    created_at         timestamptz not null default now(),
    updated_at         timestamptz not null default now()
);

-- Bearer tokens: only the SHA-256 digest of the random token is stored.
create table app.auth_tokens (
    digest      bytea primary key check (length(digest) = 32),
    user_id     uuid not null references app.users on delete cascade,
    created_at  timestamptz not null default now(),
    expires_at  timestamptz not null,
    revoked_at  timestamptz,
    check (expires_at > created_at),
    check (revoked_at is null or revoked_at >= created_at)
);
create index auth_tokens_user_id on app.auth_tokens (user_id);

-- Failed logins per email (known or not, so throttling does not reveal who has an account).
-- A successful login clears them.
create table app.login_failures (
    email      citext not null,
    failed_at  timestamptz not null default now()
);
create index login_failures_email_time on app.login_failures (email, failed_at);
