-- 0085 social sign-in (2026-12-07).
--
-- Sign in with Apple and Google (docs/security.md, "Sign in with Apple and Google"): the server
-- verifies the provider's ID token (Swift, Social/), and api.social_sign_in keeps the accounts.
-- app.user_identities: one row per provider account linked to one of ours, unique by
-- (provider, subject), at most one per provider per account. An Apple identity may hold the
-- refresh token Apple gave for the app's authorization code, kept only so that erasure can
-- revoke it. app.apple_revocations: the outbox of those revocations (`focus-island
-- apple-revoke` posts them to Apple's revoke endpoint), filled by erasure. Both new tables: no
-- existing table is changed beyond the foreign key's brief lock on app.users.
set local lock_timeout = '2s';

create table app.user_identities (
    provider          text not null check (provider in ('apple', 'google')),
    subject           text not null check (length(subject) between 1 and 255),
    user_id           uuid not null references app.users (id),
    email             citext check (length(email) <= 254),
    client_id         text not null check (length(client_id) between 1 and 255),
    apple_refresh_token text check (apple_refresh_token is null
                                   or (length(apple_refresh_token) between 1 and 2048 and provider = 'apple')),
    created_at        timestamptz not null default now(),
    last_sign_in_at   timestamptz not null default now(),
    primary key (provider, subject),
    unique (user_id, provider)
);
comment on table app.user_identities is
    'A provider account (Apple, Google) linked to one of ours: signing in with it signs in as user_id. Linked at a first '
    'sign-in that made the account, or by POST /me/identities while signed in; deleted by erasure.';
comment on column app.user_identities.provider is
    'personal: no (apple or google); on erasure: deleted';
comment on column app.user_identities.subject is
    E'personal: pseudonymous (the provider''s stable id of the person for this app); on erasure: deleted\n'
    'The ID token''s sub.';
comment on column app.user_identities.email is
    E'personal: yes (the address the provider gave, an Apple relay address too); on erasure: deleted\n'
    'The ID token''s email at the last sign-in with it; null when it gave none.';
comment on column app.user_identities.client_id is
    E'personal: no (the app''s client id the token was issued for, its aud); on erasure: deleted\n'
    'Apple''s revoke endpoint needs the client id the refresh token was issued to.';
comment on column app.user_identities.apple_refresh_token is
    E'personal: yes (a credential at Apple for this person); on erasure: moved to app.apple_revocations, revoked at Apple, then deleted\n'
    'From the authorization code POST /auth/apple or POST /me/identities exchanged; null when none was given.';

create table app.apple_revocations (
    id            bigint generated always as identity primary key,
    client_id     text not null check (length(client_id) between 1 and 255),
    refresh_token text not null check (length(refresh_token) between 1 and 2048),
    created_at    timestamptz not null default now(),
    send_after    timestamptz not null default now(),
    attempts      integer not null default 0 check (attempts >= 0),
    last_error    text check (length(last_error) <= 200)
);
create index apple_revocations_due on app.apple_revocations (send_after, id);
comment on table app.apple_revocations is
    'Apple refresh tokens to revoke at Apple (erasure, a replaced token): claimed by `focus-island apple-revoke` '
    '(api.apple_revocations_claim), deleted once Apple accepted them or after max attempts (api.apple_revocations_settle).';
comment on column app.apple_revocations.client_id is
    'personal: no (the app''s client id); on erasure: it is erasure''s own product, deleted once sent';
comment on column app.apple_revocations.refresh_token is
    'personal: yes (a credential at Apple of an erased or re-linked account, tied to no account); on erasure: it is erasure''s own product, deleted once Apple revoked it (or after max attempts)';
comment on column app.apple_revocations.last_error is
    'personal: no (Apple''s answer); on erasure: deleted with the row';
