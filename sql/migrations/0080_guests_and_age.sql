-- 0080 guests, the age gate and the new accounts' offline window (2026-12-07).
--
-- A guest is a live account with neither email nor password (POST /auth/guest), made on a
-- phone's first minute and turned into a full one, same id, by POST /me/upgrade: the rule of
-- app.users that tied a live account to its email and password becomes "both or neither"
-- (users_guest_or_account, NOT VALID here, validated by 0081; the old users_deleted_are_anonymous
-- goes in the same statement, so no moment holds neither). Guests made per client address are
-- counted (app.guest_creations, as the sign-up's 409s are in app.taken_email_answers) and
-- bounded by app.guest_settings; a guest unused for idle_erasure is erased by the job
-- erase_idle_guests (docs/guests.md).
-- The age gate: the birth month a person gave (the first of the month; nothing finer is kept),
-- and when a parent's consent was recorded; under app.age_settings.min_age without consent the
-- account is restricted (docs/guests.md, "The age gate"). The parent's consent is asked by mail
-- (app.parental_consents, two mail kinds).
-- Offline sessions: an account younger than economy_settings.new_account_offline_age (and every
-- guest) records sessions back to its creation, past offline_max_age (docs/sessions.md).
set local lock_timeout = '2s';

-- The strongest lock first: users is read by every request, then written below.
lock table app.users in access exclusive mode;

alter table app.users
    add column birth_month date,
    add column parental_consent_at timestamptz;
alter table app.users add constraint users_birth_month_check
    check (extract(day from birth_month) = 1 and birth_month >= date '1900-01-01') not valid;
alter table app.users
    drop constraint users_deleted_are_anonymous,
    add constraint users_guest_or_account check (
        case when deleted_at is null then (email is null) = (password_hash is null)
             else email is null and password_hash is null and display_name = 'Deleted user' end) not valid;
comment on column app.users.birth_month is
    'The first day of the month the person said they were born in (the age gate: sign-up, guest, upgrade); null: '
    'not asked (accounts made before 2026-12-07, or a client that does not ask). Set once. Erased with the account.';
comment on column app.users.parental_consent_at is
    'When a parent confirmed consent for an account under app.age_settings.min_age (app.parental_consents); null: none.';

create table app.guest_settings (
    singleton               boolean primary key default true check (singleton),
    max_guests_per_address  integer not null default 20 check (max_guests_per_address > 0),
    guest_window            interval not null default interval '1 hour' check (guest_window > interval '0'),
    idle_erasure            interval not null default interval '30 days' check (idle_erasure >= interval '1 day')
);
comment on table app.guest_settings is
    'Guests (POST /auth/guest): at most max_guests_per_address made from one address bucket within guest_window '
    '(429 too_many_attempts), erased by erase_idle_guests once unused (no session, no token used) for idle_erasure.';
insert into app.guest_settings default values;

create table app.guest_creations (
    client_ip   inet,
    created_at  timestamptz not null default now()
);
create index guest_creations_address_time on app.guest_creations (client_ip, created_at);
comment on table app.guest_creations is
    'One row per guest made, by address bucket (api.address_bucket), for the bound of app.guest_settings; '
    'pruned after guest_window (app.prune_personal_data).';
comment on column app.guest_creations.client_ip is
    'personal: yes (an address bucket); on erasure: kept, tied to no account; 1 hour (`guest_window`)';

create table app.age_settings (
    singleton          boolean primary key default true check (singleton),
    min_age            integer not null default 13 check (min_age between 1 and 21),
    consent_code_ttl   interval not null default interval '7 days'
                       check (consent_code_ttl between interval '1 hour' and interval '30 days'),
    max_consent_mails  integer not null default 3 check (max_consent_mails > 0),
    consent_mail_window interval not null default interval '1 day' check (consent_mail_window > interval '0')
);
comment on table app.age_settings is
    'The age gate: an account whose birth month is less than min_age years ago (counted from the end of that month) is '
    'restricted until a parent consents (a code mailed to the parent, valid consent_code_ttl; at most max_consent_mails '
    'asked per account within consent_mail_window).';
insert into app.age_settings default values;

create table app.parental_consents (
    id            bigint generated always as identity primary key,
    user_id       uuid not null references app.users (id) on delete cascade,
    parent_email  citext not null check (length(parent_email) <= 254),
    digest        bytea not null check (length(digest) = 32),
    created_at    timestamptz not null default now(),
    expires_at    timestamptz not null,
    confirmed_at  timestamptz,
    check (expires_at > created_at)
);
create index parental_consents_user on app.parental_consents (user_id, id);
create unique index parental_consents_digest on app.parental_consents (digest);
comment on table app.parental_consents is
    'Consent asked of a parent for an account under the minimum age ("email plus", docs/guests.md): a code mailed to '
    'parent_email; confirmed_at when the parent gave it back, which sets app.users.parental_consent_at.';
comment on column app.parental_consents.parent_email is
    'personal: yes (the address a child named as their parent''s); on erasure: deleted with the account';
comment on column app.parental_consents.digest is
    'personal: yes (a consent code''s SHA-256); on erasure: deleted with the account';

-- lint: allow not-valid (app.economy_settings holds one row)
alter table app.economy_settings
    add column new_account_offline_age interval not null default interval '30 days'
        check (new_account_offline_age >= interval '0' and new_account_offline_age <= interval '365 days');
comment on column app.economy_settings.new_account_offline_age is
    'An account younger than this (and every guest) records offline sessions back to its creation, past offline_max_age.';

insert into app.mail_kinds (kind, description) values
    ('parental_consent', 'To the address a child named as their parent''s: a consent code (api.me_parental_consent_create).'),
    ('parental_consent_recorded', 'To the parent who consented: what was recorded and how to withdraw (api.parental_consent_confirm).');

insert into app.scheduled_jobs (name, every, budget, description)
values ('erase_idle_guests', interval '1 hour', interval '10 seconds',
        'Erases guests unused (no session, no token used) for app.guest_settings.idle_erasure, as a deletion does (api.erase_idle_guests).');
