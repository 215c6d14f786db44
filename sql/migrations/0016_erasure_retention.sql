-- 0016 erasure and retention: every row with personal data reaches its account by id, and the
-- sign-in records and mail are kept for a stated time only (docs/privacy.md).
--
-- Sign-in failures, mail and Idempotency-Keys are keyed by an email, not by a user: a failure
-- or a reset mail to an address the account held before an email change, or a login's stored
-- answer under 'email:<address>', could not be found from the account any more. Each now
-- carries user_id, the account that held the address (or made the request) when the row was
-- written, filled by a trigger whoever writes the row; DELETE /me erases by that id. No
-- foreign key, as for friend_request_attempts: the user row is never deleted (it stays as a
-- tombstone), and a KEY SHARE lock on it from these hot inserts would meet api.lock_user.
alter table app.login_failures add column user_id uuid;
alter table app.outgoing_mail add column user_id uuid;
alter table app.idempotency_keys add column user_id uuid;
alter table app.password_reset_requests add column user_id uuid;
create index login_failures_user on app.login_failures (user_id) where user_id is not null;
create index login_failures_time on app.login_failures (failed_at);  -- app.prune_personal_data
create index outgoing_mail_user on app.outgoing_mail (user_id) where user_id is not null;
create index outgoing_mail_time on app.outgoing_mail (created_at);  -- app.prune_personal_data
create index idempotency_keys_user on app.idempotency_keys (user_id) where user_id is not null;
create index password_reset_requests_user on app.password_reset_requests (user_id) where user_id is not null;
create index password_reset_requests_time on app.password_reset_requests (created_at);  -- app.prune_personal_data
create index taken_email_answers_time on app.taken_email_answers (answered_at);  -- app.prune_personal_data
create index login_addresses_time on app.login_addresses (last_success_at);  -- app.prune_personal_data
comment on column app.login_failures.user_id is
    'The account that held the email when the failure was recorded (null: none); erased with it.';
comment on column app.outgoing_mail.user_id is
    'The account the mail was written for (the recipient''s account then; null: none); erased with it.';
comment on column app.idempotency_keys.user_id is
    'The account the stored answer belongs to: the bearer''s, or the one holding the email of a public '
    'route''s request (set once the answer is stored, for a sign-up); erased with it.';
comment on column app.password_reset_requests.user_id is
    'The account that held the email when the reset was asked for (null: none); erased with it.';

-- Fill user_id where the writer left it null (the functions: sql/app/080_erasure.sql).
create trigger login_failures_link
before insert on app.login_failures
for each row execute function app.link_to_email_holder('email');

create trigger outgoing_mail_link
before insert on app.outgoing_mail
for each row execute function app.link_to_email_holder('recipient');

create trigger idempotency_keys_link
before insert or update on app.idempotency_keys
for each row execute function app.link_idempotency_key();

create trigger password_reset_requests_link
before insert on app.password_reset_requests
for each row execute function app.link_to_email_holder('email');

-- What is there already: linked by today's addresses (history before this migration cannot
-- know an address the account gave up; the retention below removes those rows in time).
update app.login_failures f set user_id = u.id from app.users u where u.email = f.email;
update app.outgoing_mail m set user_id = u.id from app.users u where u.email = m.recipient;
update app.idempotency_keys k set user_id = substr(k.scope, 6)::uuid where k.scope ~ '^user:[0-9a-f-]{36}$';
update app.idempotency_keys k set user_id = u.id from app.users u
where k.scope like 'email:%' and u.email = substr(k.scope, 7)::citext;
update app.password_reset_requests q set user_id = u.id from app.users u where u.email = q.email;

-- How long sign-in records and mail are kept (GDPR art. 5(1)(e), storage limitation). A DBA
-- may change the periods; pruning never goes below what throttling reads
-- (app.auth_settings.failed_login_window and known_address_ttl), so it changes no answer.
create table app.retention_settings (
    singleton        boolean primary key default true check (singleton),
    login_failures   interval not null default interval '30 days' check (login_failures >= interval '1 day'),
    login_addresses  interval not null default interval '90 days' check (login_addresses >= interval '1 day'),
    outgoing_mail    interval not null default interval '30 days' check (outgoing_mail >= interval '1 day')
);
comment on table app.retention_settings is
    'Kept this long, then deleted by app.prune_personal_data (hourly): login_failures after failed_at, '
    'login_addresses after last_success_at, outgoing_mail after created_at (sent or not).';
insert into app.retention_settings default values;

-- Pruned by app.prune_personal_data (sql/app/080_erasure.sql).
-- The offline coin cap counts UTC days of a session's end again: a day of the user's own zone
-- could be moved by changing the zone between uploads, and so multiplied (docs/economy.md).
comment on table app.economy_settings is
    'Coins = floor(minutes * coins_per_minute) once a session reaches min_minutes_to_earn. Sessions '
    'recorded offline earn at most offline_daily_coin_cap per UTC day of their end (whatever the user''s '
    'time zone, which the user can change) and must end within offline_max_age, so a phone cannot '
    'backfill a year of coins.';
