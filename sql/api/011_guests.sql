-- api guests and the age gate (docs/guests.md, 2026-12-07): an account made on a phone's first
-- minute without email or password (POST /auth/guest), turned into a full one keeping its id and
-- so everything it holds (POST /me/upgrade); the birth month asked at sign-up, guest and
-- upgrade; a parent's consent asked by mail for an account under the minimum age
-- (POST /me/parental-consent) and given back with the mailed code (POST /parental-consent);
-- the idle guests' erasure (the job erase_idle_guests).

-- Whether an account is a guest: live, and neither email nor password (users_guest_or_account
-- holds that both go together).
create function api.is_guest(user_id uuid)
returns boolean
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return exists (select from app.users u where u.id = is_guest.user_id and u.email is null and u.deleted_at is null);
end
$$;

-- 403 guest_not_allowed when user_id is a guest: what needs a verified identity (friend
-- requests by email, gifts, rooms, the global board; changing a password or email one does not
-- have) waits for POST /me/upgrade. `what` names it in the message.
create function api.refuse_guest(user_id uuid, what text)
returns void
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    if api.is_guest(refuse_guest.user_id) then
        perform api.fail(403, 'guest_not_allowed',
                         format('%s needs a full account: add an email and password with POST /me/upgrade first.', refuse_guest.what));
    end if;
end
$$;

-- 403 parental_consent_required when user_id is under the age gate (app.user_age_restricted):
-- friend requests by email wait for a parent's consent (POST /me/parental-consent).
create function api.refuse_age_restricted(user_id uuid, what text)
returns void
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    if app.user_age_restricted(refuse_age_restricted.user_id) then
        perform api.fail(403, 'parental_consent_required',
                         format('%s waits for a parent''s consent: ask for it with POST /me/parental-consent.', refuse_age_restricted.what));
    end if;
end
$$;

-- The birth month of a body: birth_year and birth_month, both or neither (absent or null: no
-- answer, null). Else 400 invalid_field before anything is written: each an integer, the month
-- 1 to 12, the year from 1900, the month not in the future. Returns the month's first day; no
-- default steers the answer (the app asks a neutral question, docs/guests.md).
create function api.birth_month_field(body jsonb)
returns date
language plpgsql volatile
as $$
declare
    v_year integer := api.integer_field(birth_month_field.body, 'birth_year', 1900, extract(year from current_date)::integer,
                                        required => false);
    v_month integer := api.integer_field(birth_month_field.body, 'birth_month', 1, 12, required => false);
begin
    if (v_year is null) <> (v_month is null) then
        perform api.fail_field(case when v_year is null then 'birth_year' else 'birth_month' end,
                               'must be given with ' || case when v_year is null then 'birth_month.' else 'birth_year.' end);
    end if;
    if v_year is not null and make_date(v_year, v_month, 1) > current_date then
        perform api.fail_field('birth_month', 'must not be in the future.');
    end if;
    return case when v_year is not null then make_date(v_year, v_month, 1) end;
end
$$;

-- Stores a birth month read by api.birth_month_field (null: nothing) through the one writer,
-- app.record_birth_month.
create function api.record_birth(user_id uuid, birth date)
returns void
language sql volatile security definer set search_path = public, pg_temp
as $$
    select app.record_birth_month(record_birth.user_id, extract(year from record_birth.birth)::integer,
                                  extract(month from record_birth.birth)::integer)
$$;

-- POST /auth/guest {display_name?, time_zone?, birth_year?, birth_month?}: 201 {user, token,
-- expires_at}, the answer of a sign-up. Guarantees: an account with no email and no password
-- (a guest), display_name checked as at sign-up ('Guest' when left out), the starters owned and
-- selected, the birth month stored if given (api.birth_month_field), the first and only key its
-- token (token_ttl, as every token). Throttled as sign-up's 409s are, by client address
-- (api.address_bucket, under the address's advisory lock so a burst cannot overshoot): at most
-- guest_settings.max_guests_per_address guests made from one address within guest_window, then
-- 429 too_many_attempts with Retry-After, nothing written; so nobody farms starter coins or
-- offline sessions by the thousand.
create function api.auth_guest_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(auth_guest_create.body, array['display_name', 'time_zone', 'birth_year', 'birth_month']);
    v_display_name text := coalesce(api.display_name_field(v_body, required => false), 'Guest');
    v_time_zone text := api.time_zone_field(v_body, 'time_zone');
    v_birth date := api.birth_month_field(v_body);
    v_bucket inet := api.address_bucket(api.client_address(auth_guest_create.params));
    v_settings app.guest_settings;
    v_made integer;
    v_oldest timestamptz;
    v_user_id uuid;
begin
    select * into v_settings from app.guest_settings;
    perform pg_advisory_xact_lock(hashtext('guest:' || coalesce(host(v_bucket), '-')));
    select count(*)::integer, min(g.created_at) into v_made, v_oldest
    from app.guest_creations g
    where g.client_ip is not distinct from v_bucket and g.created_at > now() - v_settings.guest_window;
    if v_made >= v_settings.max_guests_per_address then
        return api.problem(429, 'too_many_attempts', 'Too many guest accounts from here; wait, or sign up.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.guest_window - now()))::integer));
    end if;
    insert into app.guest_creations (client_ip) values (v_bucket);
    insert into app.users (email, password_hash, display_name, time_zone)
    values (null, null, v_display_name, coalesce(v_time_zone, 'UTC'))
    returning id into v_user_id;
    perform api.give_starters(v_user_id);
    perform api.record_birth(v_user_id, v_birth);
    return api.ok(jsonb_build_object('user', api.profile(v_user_id)) || api.issue_token(v_user_id, auth_guest_create.params),
                  status => 201);
end
$$;
grant execute on function api.auth_guest_create(text, jsonb, jsonb) to focus_api;
comment on function api.auth_guest_create(text, jsonb, jsonb) is
    'POST /auth/guest (public): an account without email or password, its first token; at most max_guests_per_address '
    'per address within guest_window (429 too_many_attempts).';
insert into api.endpoints (method, path, function, access, status, body, localized, errors)
values ('POST', '/auth/guest', 'api.auth_guest_create', 'public', 201, 'optional_json', true,
        '{inappropriate_display_name, invalid_display_name, invalid_field, too_many_attempts}');

-- POST /me/upgrade {email, password, display_name?, birth_year?, birth_month?}: 200 {user}.
-- Guarantees: the guest becomes a full account in place (same id: balance, items, sessions,
-- streak, achievements and all stay), its email unverified with a code mailed as at sign-up;
-- display_name changed only when given; the birth month stored if given and none was
-- (app.record_birth_month: once). The email is refused as sign-up refuses it, by the same
-- count: 409 email_taken, counted against the client address (app.taken_email_answers, also
-- for two guests racing for one email); an address past max_taken_answers_per_address within
-- taken_answer_window is 429 too_many_attempts for every email alike (where sign-up steps up by
-- mail), so an upgrade tells no more than a sign-up. The same email again once upgraded (a
-- double submit) answers the same; any other call from a full account is 409 already_upgraded.
create function api.me_upgrade(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_upgrade.token);
    v_body jsonb := api.only_keys(me_upgrade.body, array['email', 'password', 'display_name', 'birth_year', 'birth_month']);
    v_email text := api.email_field(v_body);
    v_password text := api.password_field(v_body, 'password');
    v_display_name text := api.display_name_field(v_body, required => false);
    v_birth date := api.birth_month_field(v_body);
    v_hash text := api.hash_password(v_password);
    v_bucket inet := api.address_bucket(api.client_address(me_upgrade.params));
    v_settings app.auth_settings;
    v_answers integer;
    v_oldest timestamptz;
    v_user app.users := api.lock_account(v_user_id);
begin
    if v_user.email is not null then
        if v_user.email = v_email::citext then
            return api.ok(jsonb_build_object('user', api.profile(v_user_id)));
        end if;
        perform api.fail(409, 'already_upgraded', 'This account already has an email and password.');
    end if;
    select * into v_settings from app.auth_settings;
    perform pg_advisory_xact_lock(hashtext('taken:' || coalesce(host(v_bucket), '-')));
    select count(*)::integer, min(a.answered_at) into v_answers, v_oldest
    from app.taken_email_answers a
    where a.client_ip is not distinct from v_bucket and a.answered_at > now() - v_settings.taken_answer_window;
    if v_answers >= v_settings.max_taken_answers_per_address then
        return api.problem(429, 'too_many_attempts', 'Too many emails tried from here; wait before trying again.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.taken_answer_window - now()))::integer));
    end if;
    begin
        update app.users u
        set email = v_email, password_hash = v_hash, display_name = coalesce(v_display_name, u.display_name), updated_at = now()
        where u.id = v_user_id;
    exception when unique_violation then
        insert into app.taken_email_answers (client_ip) values (v_bucket);
        return api.problem(409, 'email_taken', 'An account with that email already exists.');
    end;
    perform api.record_birth(v_user_id, v_birth);
    perform api.send_email_verification(v_user_id, v_email);
    return api.ok(jsonb_build_object('user', api.profile(v_user_id)));
end
$$;
grant execute on function api.me_upgrade(text, jsonb, jsonb) to focus_api;
comment on function api.me_upgrade(text, jsonb, jsonb) is
    'POST /me/upgrade: a guest gets an email and password, same id, keeping everything; 409 email_taken as at sign-up '
    '(counted by address; 429 past the budget), 409 already_upgraded for a full account; the same email again answers the same.';
insert into api.endpoints (method, path, function, body, localized, errors)
values ('POST', '/me/upgrade', 'api.me_upgrade', 'json', true,
        '{account_suspended, already_upgraded, email_taken, inappropriate_display_name, invalid_display_name, invalid_email, '
        'invalid_field, too_many_attempts, weak_password}');

-- POST /me/parental-consent {parent_email}: 202 {consent: "mailed", code_expires_in}.
-- Guarantees: only for an account under the age gate (else 409 parental_consent_not_needed); the
-- parent's address is not the account's own (400 invalid_field); at most
-- age_settings.max_consent_mails asked within consent_mail_window (429 too_many_attempts with
-- Retry-After); then a code (80 random bits, stored as its SHA-256, valid consent_code_ttl) is
-- mailed to the parent with what the account keeps and what consent allows
-- (docs/guests.md, "Parental consent: email plus"). The mail is linked to the account (erased with it).
create function api.me_parental_consent_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_parental_consent_create.token);
    v_body jsonb := api.only_keys(me_parental_consent_create.body, array['parent_email']);
    v_email text := api.email_field(v_body, 'parent_email');
    v_settings app.age_settings;
    v_user app.users := api.lock_user(v_user_id);
    v_sent integer;
    v_oldest timestamptz;
    v_code text := upper(encode(gen_random_bytes(10), 'hex'));
    v_days integer;
begin
    if not app.age_restricted(v_user.birth_month, v_user.parental_consent_at) then
        perform api.fail(409, 'parental_consent_not_needed', 'This account needs no parental consent.');
    end if;
    if v_email::citext = v_user.email then
        perform api.fail_field('parent_email', 'must be a parent''s address, not this account''s.');
    end if;
    select * into v_settings from app.age_settings;
    select count(*)::integer, min(c.created_at) into v_sent, v_oldest
    from app.parental_consents c
    where c.user_id = v_user_id and c.created_at > now() - v_settings.consent_mail_window;
    if v_sent >= v_settings.max_consent_mails then
        return api.problem(429, 'too_many_attempts', 'Too many consent mails asked; wait before asking again.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.consent_mail_window - now()))::integer));
    end if;
    v_days := greatest(1, (extract(epoch from v_settings.consent_code_ttl) / 86400)::integer);
    insert into app.parental_consents (user_id, parent_email, digest, expires_at)
    values (v_user_id, v_email, sha256(convert_to(v_code, 'UTF8')), now() + v_settings.consent_code_ttl);
    insert into app.outgoing_mail (recipient, user_id, subject, body, kind, params)
    values (v_email, v_user_id, 'Your child asks to use Focus Island with friends',
            format(E'%s, who gave this address as their parent''s, uses Focus Island, a study timer. Under %s, they can run '
                   'focus sessions and earn coins, but cannot add friends by email or appear on the public leaderboard '
                   'until a parent agrees.\nTo agree, enter the code %s in the app within %s days. If you do not agree, '
                   'ignore this mail: nothing changes.',
                   v_user.display_name, (select s.min_age from app.age_settings s), v_code, v_days),
            'parental_consent',
            jsonb_build_object('code', v_code, 'display_name', v_user.display_name, 'days', v_days,
                               'min_age', (select s.min_age from app.age_settings s)));
    -- ParentalConsentMailed = {consent: "mailed", code_expires_in}
    return api.ok(jsonb_build_object('consent', 'mailed',
                                     'code_expires_in', extract(epoch from v_settings.consent_code_ttl)::integer),
                  status => 202);
end
$$;
grant execute on function api.me_parental_consent_create(text, jsonb, jsonb) to focus_api;
comment on function api.me_parental_consent_create(text, jsonb, jsonb) is
    'POST /me/parental-consent: a code mailed to a parent for an account under the age gate (409 '
    'parental_consent_not_needed otherwise; 429 past max_consent_mails).';
insert into api.endpoints (method, path, function, status, body, errors)
values ('POST', '/me/parental-consent', 'api.me_parental_consent_create', 202, 'json',
        '{account_suspended, invalid_email, invalid_field, parental_consent_not_needed, too_many_attempts}');

-- POST /parental-consent {code} (public: the parent has no token): 200 {consent: "recorded",
-- recorded_at}. Guarantees: the code (spaces and dashes ignored, any case) of an unexpired
-- consent mail records the consent: app.users.parental_consent_at is set (the age gate lifts)
-- and a second mail tells the parent what was recorded and how to withdraw it (the "plus" of
-- email plus). A wrong, expired or unknown code is 400 invalid_consent_code; the code is 80
-- random bits, so guessing one is hopeless without a count. The same code again (a double
-- submit) answers the same.
create function api.parental_consent_confirm(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(parental_consent_confirm.body, array['code']);
    v_code text := upper(regexp_replace(api.text_field(v_body, 'code', max_length => 100), '[\s-]', '', 'g'));
    v_consent app.parental_consents;
    v_user app.users;
begin
    select c.* into v_consent from app.parental_consents c
    where c.digest = sha256(convert_to(v_code, 'UTF8')) and (c.expires_at > now() or c.confirmed_at is not null)
    for update;
    if v_consent.id is null then
        return api.problem(400, 'invalid_consent_code', 'The code is wrong or expired.');
    end if;
    v_user := api.lock_user(v_consent.user_id);
    if v_consent.confirmed_at is null then
        update app.parental_consents c set confirmed_at = now() where c.id = v_consent.id returning * into v_consent;
        update app.users u set parental_consent_at = coalesce(u.parental_consent_at, now()), updated_at = now()
        where u.id = v_consent.user_id;
        insert into app.outgoing_mail (recipient, user_id, subject, body, kind, params)
        values (v_consent.parent_email, v_consent.user_id, 'You agreed: your child uses Focus Island with friends',
                format(E'You agreed that %s may add friends on Focus Island and appear on its public leaderboard. '
                       'We keep only what the app needs: their display name, birth month, sessions, coins and what they '
                       'bought, and the friends they add.\nTo withdraw, reply to this mail or delete the account from the app; '
                       'everything personal is erased.', v_user.display_name),
                'parental_consent_recorded', jsonb_build_object('display_name', v_user.display_name));
    end if;
    -- ParentalConsentRecorded = {consent: "recorded", recorded_at}
    return api.ok(jsonb_build_object('consent', 'recorded', 'recorded_at', api.iso(v_consent.confirmed_at)));
end
$$;
grant execute on function api.parental_consent_confirm(text, jsonb, jsonb) to focus_api;
comment on function api.parental_consent_confirm(text, jsonb, jsonb) is
    'POST /parental-consent (public): the mailed code records a parent''s consent (400 invalid_consent_code); again: the same.';
insert into api.endpoints (method, path, function, access, body, errors)
values ('POST', '/parental-consent', 'api.parental_consent_confirm', 'public', 'json',
        '{invalid_consent_code, invalid_field}');

-- Erases up to `batch` guests unused for guest_settings.idle_erasure: made that long ago, no
-- token used and no session started since (a sign-in for a guest is its token's use), each as a
-- deletion erases an account (api.erase_account: the tombstone keeps the ledger adding up).
-- Oldest first, read from users_guests (0082). Returns how many; the job erase_idle_guests.
create function api.erase_idle_guests(batch integer)
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_since timestamptz := now() - (select s.idle_erasure from app.guest_settings s);
    v_user_id uuid;
    v_erased integer := 0;
begin
    for v_user_id in
        select u.id from app.users u
        where u.email is null and u.deleted_at is null and u.created_at < v_since
          and not exists (select from app.auth_tokens t where t.user_id = u.id and t.last_used_at >= v_since)
          and not exists (select from app.focus_sessions s where s.user_id = u.id and s.started_at >= v_since)
        order by u.created_at
        limit erase_idle_guests.batch
    loop
        perform api.erase_account(v_user_id, null);
        v_erased := v_erased + 1;
    end loop;
    return v_erased;
end
$$;
