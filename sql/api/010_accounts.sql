-- api accounts: readiness, register, login, logout. Passwords are bcrypt hashes (pgcrypto);
-- tokens are 32 random bytes, handed out once, stored as SHA-256 digests with an expiry.

-- GET /ready: the newest applied migration (the server answers 503 if this fails).
create function api.ready()
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object('status', 'ready',
                                  'schema_version', coalesce(max(m.version), 0))
        from app.schema_migrations m);
end
$$;
grant execute on function api.ready() to focus_api;

-- The app.clients row of the client an X-Client-Version header names (params.client_version,
-- passed by the HTTP layer, which refuses a malformed one on the routes the release controls
-- hold): `<platform>/<version>`, the platform lower-cased, the row made on first sight;
-- (unknown, unknown) without a header or with one this grammar does not read.
create function api.client_id(params jsonb)
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_parts text[] := regexp_match(btrim(client_id.params ->> 'client_version', E' \t'),
                                   '^([A-Za-z][A-Za-z0-9-]{0,15})/([0-9]{1,5}(\.[0-9]{1,5}){0,2})$');
    v_platform text := coalesce(lower(v_parts[1]), 'unknown');
    v_version text := coalesce(v_parts[2], 'unknown');
    v_id integer;
begin
    select c.id into v_id from app.clients c where c.platform = v_platform and c.version = v_version;
    if v_id is null then
        insert into app.clients (platform, version) values (v_platform, v_version)
        on conflict (platform, version) do nothing
        returning id into v_id;
    end if;
    return coalesce(v_id, (select c.id from app.clients c where c.platform = v_platform and c.version = v_version));
end
$$;

-- A sign-in (or a sign-up) of the client params name (api.client_id): counted in
-- app.client_sign_ins for the person's UTC day, made the client their activity counts under
-- (app.user_clients.client_id); a sign-up also records the client they signed up with and
-- counts them in app.signup_day_totals on this UTC day (the cohort app.count_user_day counts
-- their D1, D7 and D30 in).
create function api.record_sign_in(user_id uuid, params jsonb, signup boolean)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_client integer := api.client_id(record_sign_in.params);
begin
    insert into app.client_sign_ins as s (user_id, day, client_id, sign_ins)
    values (record_sign_in.user_id, (now() at time zone 'UTC')::date, v_client, 1)
    on conflict on constraint client_sign_ins_pkey do update set sign_ins = s.sign_ins + 1;
    insert into app.user_clients as c (user_id, signup_day, signup_client_id, client_id)
    values (record_sign_in.user_id, case when record_sign_in.signup then (now() at time zone 'UTC')::date end,
            case when record_sign_in.signup then v_client end, v_client)
    on conflict on constraint user_clients_pkey do update set client_id = excluded.client_id;
    if record_sign_in.signup then
        insert into app.signup_day_totals as t (day, client_id, shard, signed_up)
        values ((now() at time zone 'UTC')::date, v_client, app.counter_shard(record_sign_in.user_id), 1)
        on conflict on constraint signup_day_totals_pkey do update set signed_up = t.signed_up + 1;
    end if;
end
$$;

-- A new token for a user: {token, expires_at}. Only the digest is kept, with the client's
-- User-Agent (params.user_agent, passed by the HTTP layer) as the device's label; the sign-in
-- (a sign-up with `signup`) is recorded with its client (api.record_sign_in).
create function api.issue_token(user_id uuid, params jsonb default '{}', signup boolean default false)
returns jsonb
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_token text := translate(encode(gen_random_bytes(32), 'base64'), '+/=', '-_');
    v_expires_at timestamptz;
begin
    perform api.record_sign_in(issue_token.user_id, issue_token.params, issue_token.signup);
    insert into app.auth_tokens (digest, user_id, expires_at, user_agent)
    select sha256(convert_to(v_token, 'UTF8')), issue_token.user_id, now() + s.token_ttl,
           nullif(left(btrim(regexp_replace(issue_token.params ->> 'user_agent', '[[:cntrl:]]', '', 'g')), 200), '')
    from app.auth_settings s
    returning expires_at into v_expires_at;
    return jsonb_build_object('token', v_token, 'expires_at', api.iso(v_expires_at));
end
$$;

-- What a name is matched as, against the reserved names and app.blocked_name_terms: both
-- sides folded the same way, so "B a D", "b4d", "ＢＡＤ" and "bád" all read "bad". Compatibility
-- forms (full-width, ligatures, mathematical letters) to plain ones (NFKC), lower case, accents
-- and other combining marks dropped, look-alikes to one letter (0 o, 1 l i | ! to i, 2 z, 3 e,
-- 4 @ a, 5 $ s, 6 g, 7 t, 8 b, 9 g, and Cyrillic and Greek letters drawn like Latin ones),
-- everything that is not a letter dropped (spacing, punctuation, other digits), runs of one
-- letter cut to one ("baaad").
create function api.name_skeleton(name text)
returns text
language sql immutable parallel safe
as $$
    select regexp_replace(regexp_replace(
               translate(regexp_replace(normalize(lower(normalize(name_skeleton.name, nfkc)), nfd),
                                        '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]', '', 'g'),
                         '01l|!23456789@$' || 'авсԁеһіјкӏмпорԛѕтԝхуαβεηικμνορτυχ',
                         'oiiiizeasgtbgas' || 'abcdehijkimnopqstwxyabenikuvoptux'),
               '[^[:alpha:]]', '', 'g'),
           '(.)\1+', '\1', 'g')
$$;

-- Whether a text a person shows others (a display name, a bio) holds a term of
-- app.blocked_name_terms, both folded alike by api.name_skeleton.
create function api.holds_blocked_term(value text)
returns boolean
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select exists (select from app.blocked_name_terms b
                       where api.name_skeleton(b.term) <> ''
                         and strpos(api.name_skeleton(holds_blocked_term.value), api.name_skeleton(b.term)) > 0));
end
$$;

-- Names nobody may take, whole (after api.name_skeleton): the name deletion leaves on an
-- account ('Deleted user', sql/api/012_account_lifecycle.sql), and names that speak for the app
-- or its staff. Contained in a longer name they are the blocklist's business.
create function api.reserved_display_names()
returns text[]
language sql immutable
as $$
    select array['Deleted user', 'Deleted account', 'admin', 'administrator', 'moderator', 'staff', 'support',
                 'system', 'root', 'Focus Island', 'Focus Island Team', 'Focus Island Support']
$$;

-- A display name as stored, or 400: the one check of a name, wherever one is set (sign-up,
-- PATCH /me, a moderator's rename). Guarantees: NFC, trimmed, and app.display_name_is_clean
-- (1 to 40 characters; no control, bidi, zero-width or invisible characters; no flood of
-- combining marks), else 400 invalid_display_name; not a reserved name, else 400
-- invalid_display_name; no term of app.blocked_name_terms inside it, folded alike
-- (api.name_skeleton), else 400 inappropriate_display_name.
create function api.display_name(name text)
returns text
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_name text := btrim(normalize(display_name.name, nfc));
    v_skeleton text := api.name_skeleton(v_name);
begin
    if not app.display_name_is_clean(v_name) then
        perform api.fail(400, 'invalid_display_name',
                         'Use a display name of 1 to 40 characters, without invisible, control or direction characters.');
    end if;
    if v_skeleton = any (select api.name_skeleton(r) from unnest(api.reserved_display_names()) r) then
        perform api.fail(400, 'invalid_display_name', 'That display name is reserved; choose another.');
    end if;
    if api.holds_blocked_term(v_name) then
        perform api.fail(400, 'inappropriate_display_name', 'That display name is not allowed; choose another.');
    end if;
    return v_name;
end
$$;

-- display_name of a body, checked and normalised by api.display_name (400
-- invalid_display_name, inappropriate_display_name). Absent and not required reads as null.
create function api.display_name_field(body jsonb, required boolean)
returns text
language plpgsql volatile
as $$
declare
    v_name text := api.text_field(display_name_field.body, 'display_name', display_name_field.required);
begin
    if v_name is null then
        return null;
    end if;
    return api.display_name(v_name);
end
$$;

-- A bio as stored, or 400: NFC, trimmed; empty after trimming reads as null (no bio). Set, it
-- passes app.bio_is_clean (the character rules of a display name, at most 160 characters),
-- else 400 invalid_field naming bio; no term of app.blocked_name_terms inside it (as for a
-- display name, api.holds_blocked_term), else 400 inappropriate_bio.
create function api.bio(bio text)
returns text
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_bio text := nullif(btrim(normalize(bio.bio, nfc)), '');
begin
    if v_bio is null then
        return null;
    end if;
    if not app.bio_is_clean(v_bio) then
        perform api.fail_field('bio', 'must be at most 160 characters, without line breaks, invisible, control or direction characters.');
    end if;
    if api.holds_blocked_term(v_bio) then
        perform api.fail(400, 'inappropriate_bio', 'That bio is not allowed; write another.');
    end if;
    return v_bio;
end
$$;

-- An email address of a body, trimmed (400 invalid_email when it does not look like one): the one
-- check of an email's form, wherever an email is read (register, login, change email, password
-- reset, friend requests), so a malformed email is the same problem everywhere.
create function api.email_field(body jsonb, field text default 'email')
returns text
language plpgsql volatile
as $$
declare
    v_email text := btrim(api.text_field(email_field.body, email_field.field));
begin
    -- No control character (C0, DEL, C1), no-break space or BOM anywhere, as docs/openapi.json's
    -- pattern says: such an email cannot be typed, only pasted by mistake.
    if length(v_email) > 254 or v_email !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' or v_email ~ '[[:cntrl:]\u00a0\ufeff]' then
        perform api.fail(400, 'invalid_email', 'That does not look like an email address.');
    end if;
    return v_email;
end
$$;

-- A new password of a body: at least 8 characters (400 weak_password) and at most 72 bytes,
-- since bcrypt reads only the first 72: refused rather than silently cut (400 invalid_field).
create function api.password_field(body jsonb, field text)
returns text
language plpgsql volatile
as $$
declare
    v_password text := api.text_field(password_field.body, password_field.field);
begin
    if length(v_password) < 8 then
        perform api.fail(400, 'weak_password', 'Use a password of at least 8 characters.');
    end if;
    if octet_length(v_password) > 72 then
        perform api.fail_field(password_field.field, 'must be at most 72 bytes.');
    end if;
    return v_password;
end
$$;

-- A bcrypt hash of a password at the current cost.
create function api.hash_password(password text)
returns text
language sql volatile security definer set search_path = public, pg_temp
as $$ select crypt(hash_password.password, gen_salt('bf', s.bcrypt_cost)) from app.auth_settings s $$;

-- The client's address as the HTTP layer passed it (params.client_ip); null when unknown or
-- not an address. The server always overwrites any client_ip a client put in its query.
create function api.client_address(params jsonb)
returns inet
language plpgsql immutable
as $$
declare
    v_text text := client_address.params ->> 'client_ip';
begin
    if v_text is null or v_text !~ '^[0-9A-Fa-f:.]{2,45}$' then
        return null;
    end if;
    return v_text::inet;
exception when data_exception then
    return null;
end
$$;

-- The bucket an address is counted in: an IPv4 address alone, an IPv6 address with its /64
-- (one subscriber usually holds a whole /64); null stays null (unknown counts as one address).
create function api.address_bucket(client_ip inet)
returns inet
language sql immutable
as $$
    select network(set_masklen(address_bucket.client_ip, case when family(address_bucket.client_ip) = 6 then 64 else 32 end))::inet
$$;

-- The address an account asked to change to and has not verified yet: the email of its newest
-- code, when that is not the account's email and was sent within verification_code_ttl; else null.
create function api.pending_email(user_id uuid)
returns citext
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select v.email
        from (select v.email, v.created_at from app.email_verifications v
              where v.user_id = pending_email.user_id order by v.id desc limit 1) v
        join app.users u on u.id = pending_email.user_id
        where v.email <> u.email and v.created_at > now() - (select s.verification_code_ttl from app.auth_settings s));
end
$$;

-- A notice to the holder of an address that someone asked to use it (a sign-up, or another
-- account's change of address): no code, nothing about the asker; linked to the holder
-- (app.link_to_email_holder), so it goes with their account. The one wording of that mail.
create function api.mail_address_taken(email text)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    insert into app.outgoing_mail (recipient, user_id, subject, body, kind, params)
    values (mail_address_taken.email, null, 'Someone tried to use your address at Focus Island',
            'Someone asked to use this address for another Focus Island account. Your account is unchanged; nothing needs doing.',
            'address_taken', jsonb_build_object('language', app.person_language(null, mail_address_taken.email)));
end
$$;

-- A new code for an address the account wants verified (its own email, or the one it asked to
-- change to), unless the account was sent max_reset_mails codes within reset_mail_window: then
-- nothing is sent and the answer is the seconds to wait (else null), so nobody can make the
-- server mail an address without end. Earlier unused codes of the account stop working; the
-- code is stored only as its SHA-256 digest and expires after verification_code_ttl. The mail
-- goes to the address, linked to the asking account (erased with it, even for an address it never
-- confirmed); when another account has the address, that account's owner gets a notice instead
-- (api.mail_address_taken) and the code is mailed to nobody, so the asker learns nothing.
create function api.send_email_verification(user_id uuid, email text)
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_settings app.auth_settings;
    v_code text := app.new_mail_code();
    v_taken boolean := exists (select from app.users u
                               where u.email = send_email_verification.email::citext and u.id <> send_email_verification.user_id);
    v_sent integer;
    v_oldest timestamptz;
begin
    select * into v_settings from app.auth_settings;
    select count(*)::integer, min(v.created_at) into v_sent, v_oldest
    from app.email_verifications v
    where v.user_id = send_email_verification.user_id and v.created_at > now() - v_settings.reset_mail_window;
    if v_sent >= v_settings.max_reset_mails then
        return greatest(1, ceil(extract(epoch from v_oldest + v_settings.reset_mail_window - now()))::integer);
    end if;
    update app.email_verifications v set used_at = now()
    where v.user_id = send_email_verification.user_id and v.used_at is null;
    insert into app.email_verifications (user_id, email, digest, expires_at)
    values (send_email_verification.user_id, send_email_verification.email,
            sha256(convert_to(v_code, 'UTF8')), now() + v_settings.verification_code_ttl);
    if v_taken then
        perform api.mail_address_taken(send_email_verification.email);
        return null;
    end if;
    insert into app.outgoing_mail (recipient, user_id, subject, body, kind, params)
    values (send_email_verification.email, send_email_verification.user_id, 'Confirm your email for Focus Island',
            format(E'Your code is %s. Enter it in the app within %s hours to confirm this address.\nIf you did not ask for it, ignore this mail.',
                   v_code, extract(epoch from v_settings.verification_code_ttl)::integer / 3600),
            'email_verification',
            jsonb_build_object('code', v_code, 'hours', extract(epoch from v_settings.verification_code_ttl)::integer / 3600,
                               'language', app.person_language(send_email_verification.user_id, null, api.language())));
    return null;
end
$$;

-- The code of a sign-up body: absent (or null) reads as null; else the 8 digits of the mail,
-- spaces around them ignored, or 400 invalid_field naming code before anything is written or
-- counted (a malformed code is no guess).
create function api.signup_code_field(body jsonb)
returns text
language plpgsql volatile
as $$
declare
    v_code text := btrim(api.text_field(signup_code_field.body, 'code', required => false, max_length => 100));
begin
    if v_code is not null and v_code !~ '^[0-9]{8}$' then
        perform api.fail_field('code', 'must be the 8 digits of the mailed code.');
    end if;
    return v_code;
end
$$;

-- A sign-up asked from an address over its 409 budget (api.auth_register): instead of a wall,
-- a step-up by mail, the same for a free and a taken email. Guarantees:
--   * 429 too_many_attempts (Retry-After) for everyone at the address once it caused
--     max_signup_mails_per_address such mails within taken_answer_window (the last resort,
--     sized for a NAT: docs/security.md), and for an email already mailed max_reset_mails of
--     them within reset_mail_window, taken or not, so nobody can make the server mail an
--     address without end; neither answer depends on whether the email has an account;
--   * otherwise one row in app.signup_codes (the digest of a new 8-digit code, expiring after
--     reset_code_ttl; earlier unused codes of the email stop working) and one mail: the code to
--     a free email (kind signup_code), a notice to a taken one's holder (api.mail_address_taken;
--     the code goes to nobody). The answer is 202 {verification: "mailed", code_expires_in}
--     either way, after the same writes, so it tells nothing about the email.
-- Called under the address's lock ('taken:' bucket); takes the email's ('signup:' email).
create function api.send_signup_code(email text, bucket inet)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_settings app.auth_settings;
    v_code text := app.new_mail_code();
    v_minutes integer;
    v_sent integer;
    v_oldest timestamptz;
begin
    select * into v_settings from app.auth_settings;
    v_minutes := extract(epoch from v_settings.reset_code_ttl)::integer / 60;
    select count(*)::integer, min(c.created_at) into v_sent, v_oldest
    from app.signup_codes c
    where c.client_ip is not distinct from send_signup_code.bucket and c.created_at > now() - v_settings.taken_answer_window;
    if v_sent >= v_settings.max_signup_mails_per_address then
        return api.problem(429, 'too_many_attempts', 'Too many sign-ups from here; wait before trying again.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.taken_answer_window - now()))::integer));
    end if;
    perform pg_advisory_xact_lock(hashtext('signup:' || lower(send_signup_code.email)));
    select count(*)::integer, min(c.created_at) into v_sent, v_oldest
    from app.signup_codes c
    where c.email = send_signup_code.email::citext and c.created_at > now() - v_settings.reset_mail_window;
    if v_sent >= v_settings.max_reset_mails then
        return api.problem(429, 'too_many_attempts', 'Too many codes asked for; wait before asking again.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.reset_mail_window - now()))::integer));
    end if;
    update app.signup_codes c set used_at = now() where c.email = send_signup_code.email::citext and c.used_at is null;
    insert into app.signup_codes (email, client_ip, digest, expires_at)
    values (send_signup_code.email, send_signup_code.bucket, sha256(convert_to(v_code, 'UTF8')),
            now() + v_settings.reset_code_ttl);
    if exists (select from app.users u where u.email = send_signup_code.email::citext) then
        perform api.mail_address_taken(send_signup_code.email);
    else
        insert into app.outgoing_mail (recipient, subject, body, kind, params)
        values (send_signup_code.email, 'Your Focus Island sign-up code',
                format(E'Your code is %s. Enter it in the app within %s minutes to finish signing up.\n'
                       'If you did not ask for it, ignore this mail: no account is made without the code.', v_code, v_minutes),
                'signup_code', jsonb_build_object('code', v_code, 'minutes', v_minutes,
                                                  'language', app.person_language(null, null, api.language())));
    end if;
    -- SignUpCodeMailed = {verification: "mailed", code_expires_in}
    return api.ok(jsonb_build_object('verification', 'mailed',
                                     'code_expires_in', extract(epoch from v_settings.reset_code_ttl)::integer),
                  status => 202);
end
$$;

-- A sign-up finished with the code api.send_signup_code mailed (api.auth_register with a code,
-- whether or not the address is still over its budget). Guarantees: the code's rules are the
-- reset's (api.failed_attempts, kind 'code', docs/security.md): 429 too_many_attempts (the code
-- not even checked) when this address may not guess at this email now; the newest unused,
-- unexpired code of the email, wrong (or none): one 400 invalid_signup_code, recorded as a
-- 'code' failure without rolling back, the code void after max_code_attempts wrong guesses;
-- a code that was mailed to the email and used since (a double submit) is answered alike but
-- counted as no guess.
-- Right: the account is made with the fields of this request, its email verified (the code
-- reached it: no second mail), every code of the email stops working, and the answer is the
-- usual {user, token, expires_at}; 409 email_taken if an account took the email since the mail.
create function api.register_with_code(email text, password_hash text, display_name text, time_zone text,
                                       code text, params jsonb, birth date default null)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_address inet := api.client_address(register_with_code.params);
    v_wait integer := api.failed_attempts(register_with_code.email, 'check', v_address, 'code');
    v_settings app.auth_settings;
    v_row app.signup_codes;
    v_user_id uuid;
begin
    if v_wait is not null then
        return api.problem(429, 'too_many_attempts', 'Too many wrong codes; wait before trying again.', retry_after => v_wait);
    end if;
    select * into v_settings from app.auth_settings;
    select c.* into v_row from app.signup_codes c
    where c.email = register_with_code.email::citext and c.used_at is null and c.expires_at > now()
    order by c.id desc limit 1
    for update;
    if v_row.id is null or v_row.digest <> sha256(convert_to(register_with_code.code, 'UTF8')) then
        -- A code mailed to this email and used or replaced since, given again (the second of a
        -- double submit, waiting on the code's lock while the first signed up) proves the
        -- mailbox: the same answer, but no guess is counted against the person or the address.
        if not exists (select from app.signup_codes c
                       where c.email = register_with_code.email::citext and c.used_at is not null
                         and c.digest = sha256(convert_to(register_with_code.code, 'UTF8'))) then
            update app.signup_codes c
            set failed_attempts = c.failed_attempts + 1,
                used_at = case when c.failed_attempts + 1 >= v_settings.max_code_attempts then now() end
            where c.id = v_row.id;
            perform api.failed_attempts(register_with_code.email, 'record', v_address, 'code');
        end if;
        return api.problem(400, 'invalid_signup_code', 'The code is wrong, expired or already used.');
    end if;
    update app.signup_codes c set used_at = now() where c.email = register_with_code.email::citext and c.used_at is null;
    insert into app.users (email, password_hash, display_name, time_zone, email_verified_at)
    values (register_with_code.email, register_with_code.password_hash, register_with_code.display_name,
            coalesce(register_with_code.time_zone, 'UTC'), now())
    on conflict on constraint users_email_key do nothing
    returning id into v_user_id;
    if v_user_id is null then
        perform api.fail(409, 'email_taken', 'An account with that email already exists.');
    end if;
    perform api.give_starters(v_user_id);
    perform api.record_birth(v_user_id, register_with_code.birth);
    perform api.failed_attempts(register_with_code.email, 'clear', v_address);
    return api.ok(jsonb_build_object('user', api.profile(v_user_id)) || api.issue_token(v_user_id, register_with_code.params, signup => true));
end
$$;

-- POST /auth/register {email, password, display_name, time_zone?, code?, birth_year?, birth_month?}
-- birth_year, birth_month (2026-12-07): the age gate's answer (api.birth_month_field, stored once
-- by app.record_birth_month), optional so the clients of before keep signing up (docs/guests.md).
-- time_zone (2026-12-01): the person's days from the first one (stats, boards, streaks); an
-- IANA name checked as PATCH /me checks settings.time_zone (400 invalid_field), UTC when left out.
-- Guarantees: emails are unique ignoring case (409 email_taken, also for two racing sign-ups);
-- the password is stored only as a bcrypt hash; the starters are owned and selected; the email
-- starts unverified and a code to verify it is mailed; the answer carries the first token.
-- Probing (2026-12-05, docs/security.md): each 409 is counted by client address
-- (api.address_bucket). While an address got fewer than max_taken_answers_per_address of them
-- within taken_answer_window, sign-up answers as above (201, or 409 email_taken). From then on
-- a sign-up without a code answers 202 alike for a free and a taken email (api.send_signup_code:
-- a code mailed to a free email, a notice to a taken one's holder; 429 only past the mail
-- bounds), so the prober learns nothing more while everyone else at the address still signs up
-- by reading their mail. The same fields with that `code` (8 digits; else 400 invalid_field)
-- make the account, email verified (api.register_with_code: 201, 400 invalid_signup_code,
-- 429), whether or not the address is still over its budget.
create function api.auth_register(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(auth_register.body, array['email', 'password', 'display_name', 'time_zone', 'code',
                                                            'birth_year', 'birth_month']);
    v_email text := api.email_field(v_body);
    v_password text := api.password_field(v_body, 'password');
    v_display_name text := api.display_name_field(v_body, required => true);
    v_time_zone text := api.time_zone_field(v_body, 'time_zone');
    v_code text := api.signup_code_field(v_body);
    v_birth date := api.birth_month_field(v_body);
    v_hash text := api.hash_password(v_password);  -- before the address's lock, which it need not hold
    v_bucket inet := api.address_bucket(api.client_address(auth_register.params));
    v_settings app.auth_settings;
    v_answers integer;
    v_user_id uuid;
begin
    if v_code is not null then
        return api.register_with_code(v_email, v_hash, v_display_name, v_time_zone, v_code, auth_register.params, v_birth);
    end if;
    select * into v_settings from app.auth_settings;
    perform pg_advisory_xact_lock(hashtext('taken:' || coalesce(host(v_bucket), '-')));
    select count(*)::integer into v_answers
    from app.taken_email_answers a
    where a.client_ip is not distinct from v_bucket and a.answered_at > now() - v_settings.taken_answer_window;
    if v_answers >= v_settings.max_taken_answers_per_address then
        return api.send_signup_code(v_email, v_bucket);
    end if;
    insert into app.users (email, password_hash, display_name, time_zone)
    values (v_email, v_hash, v_display_name, coalesce(v_time_zone, 'UTC'))
    on conflict (email) do nothing
    returning id into v_user_id;
    if v_user_id is null then
        insert into app.taken_email_answers (client_ip) values (v_bucket);
        return api.problem(409, 'email_taken', 'An account with that email already exists.');
    end if;
    perform api.give_starters(v_user_id);
    perform api.record_birth(v_user_id, v_birth);
    perform api.send_email_verification(v_user_id, v_email);

    return api.ok(jsonb_build_object('user', api.profile(v_user_id)) || api.issue_token(v_user_id, auth_register.params, signup => true));
end
$$;
grant execute on function api.auth_register(text, jsonb, jsonb) to focus_api;
comment on function api.auth_register(text, jsonb, jsonb) is
    'POST /auth/register: unique email ignoring case (409 email_taken), bcrypt-hashed password, optional IANA time_zone '
    '(default UTC), a verification code mailed, first token; past an address''s 409 budget, 202 alike for taken and free '
    'emails with a code mailed, and the same fields with that code sign up (email verified).';
insert into api.endpoints (method, path, function, access, status, body, localized, errors)
values ('POST', '/auth/register', 'api.auth_register', 'public', 201, 'json', true,
        '{email_taken, inappropriate_display_name, invalid_display_name, invalid_email, invalid_field, invalid_signup_code, too_many_attempts, weak_password}');

-- POST /auth/login {email, password}
-- Guarantees: unknown email and wrong password answer the same 401 invalid_credentials, after
-- the same bcrypt work; a malformed email is 400 invalid_email and an over-long password 400
-- invalid_field, before anything is written. Throttling (429 too_many_attempts with Retry-After, the password not even checked),
-- by sign-in failures only (kind 'login': wrong codes and a token holder's wrong passwords are
-- counted apart, so a schoolmate's wrong reset or sign-up codes never stop a sign-in, 2026-12-05):
--   * per email and client address: max_failed_logins failures within failed_login_window;
--   * per email from every address together: max_failed_logins_per_email, except from an
--     address this account signed in from within known_address_ttl (app.login_addresses),
--     so strangers' guesses cannot lock the owner out where they usually sign in.
--   The first limit holds at a known address too: behind a NAT, a schoolmate's 10 wrong
--   passwords for this email stop its owner there for the window (docs/security.md says what
--   would end that: a device cookie).
-- The client address is params.client_ip, set by the HTTP layer (never by the client); null
-- when unknown, which counts as one address of its own.
-- Failures are recorded and answered without raising, so the record survives.
-- Attempts for one email are serialized by an advisory lock, so a burst cannot overshoot.
create function api.auth_login(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(auth_login.body, array['email', 'password']);
    v_email text := api.email_field(v_body);
    v_password text := api.text_field(v_body, 'password', max_length => 72);
    v_address inet := api.client_address(auth_login.params);
    v_settings app.auth_settings;
    v_failures integer;
    v_oldest timestamptz;
    v_user app.users;
    v_known_address boolean;
begin
    if octet_length(v_password) > 72 then
        perform api.fail_field('password', 'must be at most 72 bytes.');
    end if;
    select * into v_settings from app.auth_settings;
    perform pg_advisory_xact_lock(hashtext('login:' || lower(v_email)));
    select * into v_user from app.users u where u.email = v_email::citext;
    v_known_address := v_user.id is not null and exists (
        select from app.login_addresses a
        where a.user_id = v_user.id and a.client_ip = v_address
          and a.last_success_at > now() - v_settings.known_address_ttl);

    -- This address's failures for this email.
    select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
    from app.login_failures f
    where f.email = v_email::citext and f.kind = 'login' and f.client_ip is not distinct from v_address
      and f.failed_at > now() - v_settings.failed_login_window;
    if v_failures < v_settings.max_failed_logins and not v_known_address then
        -- Every address's failures for this email.
        select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
        from (select f.failed_at
              from app.login_failures f
              where f.email = v_email::citext and f.kind = 'login' and f.failed_at > now() - v_settings.failed_login_window
              order by f.failed_at desc
              limit v_settings.max_failed_logins_per_email) f;
        v_failures := case when v_failures >= v_settings.max_failed_logins_per_email then v_failures else 0 end;
    end if;
    if v_failures >= v_settings.max_failed_logins then
        return api.problem(429, 'too_many_attempts', 'Too many failed sign-ins; wait before trying again.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.failed_login_window - now()))::integer));
    end if;

    -- Unknown email: hash against a throwaway salt of the same cost, so timing does not tell.
    if v_user.id is null
       or v_user.password_hash <> crypt(v_password, v_user.password_hash) then
        if v_user.id is null then
            perform api.hash_password(v_password);
        end if;
        insert into app.login_failures (email, client_ip) values (v_email, v_address);
        return api.problem(401, 'invalid_credentials', 'The email or password is wrong.');
    end if;

    -- Success clears this address's failures only: the owner signing in does not reset a
    -- stranger's count elsewhere.
    delete from app.login_failures f
    where f.email = v_email::citext and f.client_ip is not distinct from v_address;
    if v_address is not null then
        insert into app.login_addresses as a (user_id, client_ip) values (v_user.id, v_address)
        on conflict (user_id, client_ip) do update set last_success_at = now();
    end if;
    -- Rehash passwords stored at a lower cost than the current setting.
    if substring(v_user.password_hash from 5 for 2)::integer < v_settings.bcrypt_cost then
        update app.users u
        set password_hash = api.hash_password(v_password), updated_at = now()
        where u.id = v_user.id;
    end if;
    return api.ok(jsonb_build_object('user', api.profile(v_user.id)) || api.issue_token(v_user.id, auth_login.params));
end
$$;
grant execute on function api.auth_login(text, jsonb, jsonb) to focus_api;
comment on function api.auth_login(text, jsonb, jsonb) is
    'POST /auth/login: one 401 for unknown email and wrong password; failures recorded without raising; 429 after too many per email and address, or per email from unknown addresses.';
insert into api.endpoints (method, path, function, access, body, localized, errors)
values ('POST', '/auth/login', 'api.auth_login', 'public', 'json', true,
        '{invalid_credentials, invalid_email, invalid_field, too_many_attempts}');

-- POST /auth/logout: revokes the token it was called with, at once.
create function api.auth_logout(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    perform api.authenticate(auth_logout.token, suspended_too => true);
    update app.auth_tokens t
    set revoked_at = now()
    where t.digest = sha256(convert_to(auth_logout.token, 'UTF8'));
    return api.ok(null);
end
$$;
grant execute on function api.auth_logout(text, jsonb, jsonb) to focus_api;
comment on function api.auth_logout(text, jsonb, jsonb) is 'POST /auth/logout: the token stops working at once.';
insert into api.endpoints (method, path, function, status, errors)
values ('POST', '/auth/logout', 'api.auth_logout', 204, '{invalid_field}');
