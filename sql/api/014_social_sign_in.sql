-- api social sign-in (2026-12-07): Sign in with Apple and Google, and linking them to an
-- account (docs/security.md, "Sign in with Apple and Google"). The server verifies the ID token
-- (Social/IdentityVerifier.swift: RS256 against the provider's keys, iss, aud, exp, iat, the
-- nonce) and passes what it verified as params.identity, a JSON text only the server sets (a
-- client's own ?identity= is dropped, HTTP/Arguments.swift); nothing here reads a token. Every
-- account rule is here: who a verified identity signs in as, when it makes an account, when it
-- must be linked by the account's owner first.

-- The verified identity of a request: {provider, subject, email, email_verified,
-- is_private_email, client_id, name, refresh_token}, from params.identity. Absent: the server
-- verified no token, because the body lacks what verification needs: 400 invalid_field naming
-- `field` (id_token, or the nonce Apple's needs). A provider other than `provider` (null: any)
-- is 401 identity_token_wrong_issuer (the server checks it too).
create function api.verified_identity(params jsonb, provider text, field text)
returns jsonb
language plpgsql volatile
as $$
declare
    v_identity jsonb := (verified_identity.params ->> 'identity')::jsonb;
begin
    if v_identity is null then
        perform api.fail_field(verified_identity.field, 'is required.');
    end if;
    if verified_identity.provider is not null and v_identity ->> 'provider' is distinct from verified_identity.provider then
        perform api.fail(401, 'identity_token_wrong_issuer', 'The ID token is not from the provider this route signs in with.');
    end if;
    if coalesce(v_identity ->> 'subject', '') = '' or coalesce(v_identity ->> 'client_id', '') = '' then
        perform api.fail(401, 'identity_token_invalid', 'The ID token names no subject or audience.');
    end if;
    return v_identity;
end
$$;

-- Identity = {provider, email, linked_at, last_sign_in_at}: never the subject or a token.
create function api.identity_json(identity app.user_identities)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('provider', identity.provider, 'email', identity.email,
                              'linked_at', api.iso(identity.created_at), 'last_sign_in_at', api.iso(identity.last_sign_in_at))
$$;

-- Queues the revocation of an Apple refresh token (app.apple_revocations), when there is one.
create function api.revoke_apple_token(client_id text, refresh_token text)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    if revoke_apple_token.refresh_token is not null then
        insert into app.apple_revocations (client_id, refresh_token)
        values (revoke_apple_token.client_id, revoke_apple_token.refresh_token);
    end if;
end
$$;

-- Erasure's part (api.erase_account): every identity of the account goes, and each Apple
-- refresh token it held is queued for revocation at Apple (as Apple requires of an app that
-- deletes an account); the outbox row names no account.
create function api.erase_identities(user_id uuid)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_identity app.user_identities;
begin
    for v_identity in delete from app.user_identities i where i.user_id = erase_identities.user_id returning * loop
        perform api.revoke_apple_token(v_identity.client_id, v_identity.apple_refresh_token);
    end loop;
end
$$;

-- A linked identity signed in with again: its email and last sign-in follow the token; a new
-- Apple refresh token replaces the old one, which is queued for revocation.
create function api.identity_seen(identity app.user_identities, claims jsonb)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_refresh text := identity_seen.claims ->> 'refresh_token';
begin
    if v_refresh is not null and v_refresh is distinct from identity.apple_refresh_token then
        perform api.revoke_apple_token(identity.client_id, identity.apple_refresh_token);
    end if;
    update app.user_identities i
    set email = coalesce(identity_seen.claims ->> 'email', i.email), last_sign_in_at = now(),
        apple_refresh_token = coalesce(v_refresh, i.apple_refresh_token),
        client_id = case when v_refresh is null then i.client_id else identity_seen.claims ->> 'client_id' end
    where i.provider = identity.provider and i.subject = identity.subject;
end
$$;

-- The display name of a new account: the body's (checked: 400 invalid_display_name,
-- inappropriate_display_name), else the provider's name if it passes the same checks, else
-- 'Islander' (changed later with PATCH /me).
create function api.social_display_name(body jsonb, claims jsonb)
returns text
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_name text := api.display_name_field(social_display_name.body, required => false);
begin
    if v_name is null and social_display_name.claims ->> 'name' is not null then
        begin
            v_name := api.display_name(left(social_display_name.claims ->> 'name', 40));
        exception when sqlstate 'PT400' then
            v_name := null;
        end;
    end if;
    return coalesce(v_name, 'Islander');
end
$$;

-- The 409 account_exists_link_required of a social sign-in, counted as sign-up's 409
-- email_taken answers are (app.taken_email_answers, by api.address_bucket; docs/security.md):
-- a Google account may carry an address its maker does not own (email_verified false), so
-- the answer could otherwise probe which emails have accounts. Past the address's
-- max_taken_answers_per_address within taken_answer_window: 429 too_many_attempts (Retry-After)
-- instead, nothing counted. Answered without raising, so the count stays.
create function api.link_required(provider text, params jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_bucket inet := api.address_bucket(api.client_address(link_required.params));
    v_settings app.auth_settings;
    v_answers integer;
    v_oldest timestamptz;
begin
    select * into v_settings from app.auth_settings;
    perform pg_advisory_xact_lock(hashtext('taken:' || coalesce(host(v_bucket), '-')));
    select count(*)::integer, min(a.answered_at) into v_answers, v_oldest
    from app.taken_email_answers a
    where a.client_ip is not distinct from v_bucket and a.answered_at > now() - v_settings.taken_answer_window;
    if v_answers >= v_settings.max_taken_answers_per_address then
        return api.problem(429, 'too_many_attempts', 'Too many sign-ins with emails that have accounts; wait before trying again.',
                           retry_after => greatest(1, ceil(extract(epoch from v_oldest + v_settings.taken_answer_window - now()))::integer));
    end if;
    insert into app.taken_email_answers (client_ip) values (v_bucket);
    return api.problem(409, 'account_exists_link_required',
                       'An account with this email exists: sign in to it, then link this provider with POST /me/identities.',
                       jsonb_build_object('provider', link_required.provider));
end
$$;

-- The one account rule of a social sign-in (POST /auth/apple, POST /auth/google), given the
-- identity the server verified. Guarantees, under a lock on the identity (two racing first
-- sign-ins make one account):
--   * a linked identity signs in as its account: 200 {user, token, expires_at}, its email and
--     Apple refresh token updated (api.identity_seen);
--   * an unknown identity whose email no account holds makes an account: 201 {user, token,
--     expires_at}, the email verified when the provider says so (an Apple relay address is an
--     email like any other), else a code mailed as at sign-up; an unusable random password (the
--     person may set one by a password reset); the starters; the identity linked;
--   * an unknown identity whose email an account holds (case ignored) links nothing: 409
--     account_exists_link_required. The owner proves the account (signs in with its password,
--     another linked provider, or a password reset's mailed code) and then links it with POST
--     /me/identities (2026-12-07: no link on a matching email alone, since a provider's email
--     proves the mailbox, not that the account's owner wants the link); counted against the
--     address as sign-up's 409s are, 429 too_many_attempts past them (api.link_required);
--   * an unknown identity without an email: 400 identity_email_missing (no account can be made).
-- birth_year, birth_month (2026-12-07): the age gate's answer, as at sign-up (api.birth_month_field,
-- stored once by app.record_birth_month; docs/guests.md). A guest upgrades with a provider by
-- linking it (POST /me/identities), which keeps its id and everything it has.
create function api.social_sign_in(body jsonb, params jsonb, provider text)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_claims jsonb := api.verified_identity(social_sign_in.params, social_sign_in.provider, 'id_token');
    v_display_name text := api.social_display_name(social_sign_in.body, v_claims);
    v_time_zone text := api.time_zone_field(social_sign_in.body, 'time_zone');
    v_email text := nullif(v_claims ->> 'email', '');
    v_verified boolean := coalesce((v_claims ->> 'email_verified')::boolean, false);
    v_birth date := api.birth_month_field(social_sign_in.body);
    v_identity app.user_identities;
    v_user_id uuid;
begin
    perform pg_advisory_xact_lock(hashtext('identity:' || social_sign_in.provider || ':' || (v_claims ->> 'subject')));
    select i.* into v_identity from app.user_identities i
    where i.provider = social_sign_in.provider and i.subject = v_claims ->> 'subject';
    if v_identity.user_id is not null then
        perform api.identity_seen(v_identity, v_claims);
        perform api.record_birth(v_identity.user_id, v_birth);
        return api.ok(jsonb_build_object('user', api.profile(v_identity.user_id))
                      || api.issue_token(v_identity.user_id, social_sign_in.params));
    end if;
    if v_email is null then
        return api.problem(400, 'identity_email_missing',
                           'The provider gave no email; allow sharing the email (or a relay address) and try again.');
    end if;
    if v_email !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' or length(v_email) > 254 then
        return api.problem(400, 'identity_email_missing', 'The provider gave no usable email.');
    end if;
    if exists (select from app.users u where u.email = v_email::citext) then
        return api.link_required(social_sign_in.provider, social_sign_in.params);
    end if;
    insert into app.users (email, password_hash, display_name, time_zone, email_verified_at)
    values (v_email, api.hash_password(encode(gen_random_bytes(32), 'base64')), v_display_name,
            coalesce(v_time_zone, 'UTC'), case when v_verified then now() end)
    on conflict (email) do nothing
    returning id into v_user_id;
    if v_user_id is null then
        return api.link_required(social_sign_in.provider, social_sign_in.params);
    end if;
    insert into app.user_identities (provider, subject, user_id, email, client_id, apple_refresh_token)
    values (social_sign_in.provider, v_claims ->> 'subject', v_user_id, v_email, v_claims ->> 'client_id',
            v_claims ->> 'refresh_token');
    perform api.give_starters(v_user_id);
    perform api.record_birth(v_user_id, v_birth);
    if not v_verified then
        perform api.send_email_verification(v_user_id, v_email);
    end if;
    return api.ok(jsonb_build_object('user', api.profile(v_user_id)) || api.issue_token(v_user_id, social_sign_in.params),
                  status => 201);
end
$$;

-- POST /auth/apple {id_token, nonce, display_name?, time_zone?, authorization_code?, birth_year?, birth_month?}
-- The server verified id_token (its nonce claim is the SHA-256 hex of `nonce`) and, given an
-- authorization_code, exchanged it at Apple for a refresh token (params.identity.refresh_token).
-- Apple gives the person's name to the app only at the first sign-in: the app sends it as
-- display_name. Guarantees: api.social_sign_in's.
create function api.auth_apple_login(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(auth_apple_login.body, array['id_token', 'nonce', 'display_name', 'time_zone', 'authorization_code',
                                                                'birth_year', 'birth_month']);
begin
    perform api.text_field(v_body, 'id_token', max_length => 8192);
    perform api.text_field(v_body, 'nonce', max_length => 256);
    perform api.text_field(v_body, 'authorization_code', required => false, max_length => 1024);
    return api.social_sign_in(v_body, auth_apple_login.params, 'apple');
end
$$;
grant execute on function api.auth_apple_login(text, jsonb, jsonb) to focus_api;
comment on function api.auth_apple_login(text, jsonb, jsonb) is
    'POST /auth/apple: a verified Apple ID token signs in as its linked account (200), makes one (201), or, when its '
    'email has an account, answers 409 account_exists_link_required.';
insert into api.endpoints (method, path, function, access, status, body, localized, errors)
values ('POST', '/auth/apple', 'api.auth_apple_login', 'public', 200, 'json', true,
        '{account_exists_link_required, identity_email_missing, identity_keys_unavailable, identity_nonce_mismatch, '
        'identity_token_expired, identity_token_invalid, identity_token_unknown_key, identity_token_wrong_audience, '
        'identity_token_wrong_issuer, inappropriate_display_name, invalid_authorization_code, invalid_display_name, '
        'invalid_field, sign_in_provider_unavailable, too_many_attempts}');

-- POST /auth/google {id_token, nonce?, display_name?, time_zone?, birth_year?, birth_month?}
-- The server verified id_token (its nonce claim equals `nonce` when one is sent).
-- Guarantees: api.social_sign_in's.
create function api.auth_google_login(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(auth_google_login.body, array['id_token', 'nonce', 'display_name', 'time_zone', 'birth_year',
                                                                 'birth_month']);
begin
    perform api.text_field(v_body, 'id_token', max_length => 8192);
    perform api.text_field(v_body, 'nonce', required => false, max_length => 256);
    return api.social_sign_in(v_body, auth_google_login.params, 'google');
end
$$;
grant execute on function api.auth_google_login(text, jsonb, jsonb) to focus_api;
comment on function api.auth_google_login(text, jsonb, jsonb) is
    'POST /auth/google: a verified Google ID token signs in as its linked account (200), makes one (201), or, when its '
    'email has an account, answers 409 account_exists_link_required.';
insert into api.endpoints (method, path, function, access, status, body, localized, errors)
values ('POST', '/auth/google', 'api.auth_google_login', 'public', 200, 'json', true,
        '{account_exists_link_required, identity_email_missing, identity_keys_unavailable, identity_nonce_mismatch, '
        'identity_token_expired, identity_token_invalid, identity_token_unknown_key, identity_token_wrong_audience, '
        'identity_token_wrong_issuer, inappropriate_display_name, invalid_display_name, invalid_field, '
        'sign_in_provider_unavailable, too_many_attempts}');

-- POST /me/identities {provider, id_token, nonce?, authorization_code?, birth_year?, birth_month?}: links a provider to the
-- signed-in account, the way to end a 409 account_exists_link_required (the token proves the
-- account: a password, another linked provider, or a password reset's mailed code got it).
-- Guarantees: the identity the server verified is linked to the caller (201 Identity); the same
-- identity again answers it (200, nothing changed but its last sign-in); 409
-- identity_linked_elsewhere when another account has it; 409 identity_provider_linked when the
-- caller has another identity of that provider. The account's email stays as it is, but for a
-- guest's (2026-12-07, docs/guests.md): a guest's first identity upgrades it, same id, everything
-- kept: the provider's email (verified when the provider says so) and an unusable password become
-- the account's, as a first social sign-in makes them; an email another account has is refused
-- as a social sign-in refuses it (409 account_exists_link_required, counted by address), one the
-- provider did not give is 400 identity_email_missing.
create function api.me_identities_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_identities_create.token);
    v_body jsonb := api.only_keys(me_identities_create.body, array['provider', 'id_token', 'nonce', 'authorization_code',
                                                                   'birth_year', 'birth_month']);
    v_provider text := api.choice(api.text_field(v_body, 'provider', max_length => 16), 'provider', array['apple', 'google']);
    v_birth date := api.birth_month_field(v_body);
    v_claims jsonb;
    v_identity app.user_identities;
    v_email text;
begin
    perform api.text_field(v_body, 'id_token', max_length => 8192);
    perform api.text_field(v_body, 'nonce', required => v_provider = 'apple', max_length => 256);
    perform api.text_field(v_body, 'authorization_code', required => false, max_length => 1024);
    v_claims := api.verified_identity(me_identities_create.params, v_provider, 'id_token');
    perform api.lock_user(v_user_id);
    perform pg_advisory_xact_lock(hashtext('identity:' || v_provider || ':' || (v_claims ->> 'subject')));
    select i.* into v_identity from app.user_identities i
    where i.provider = v_provider and i.subject = v_claims ->> 'subject';
    if v_identity.user_id = v_user_id then
        perform api.identity_seen(v_identity, v_claims);
        return api.ok(api.identity_json((select i from app.user_identities i
                                         where i.provider = v_provider and i.subject = v_claims ->> 'subject')),
                      status => 200);
    elsif v_identity.user_id is not null then
        perform api.fail(409, 'identity_linked_elsewhere', 'That provider account is linked to another account.');
    end if;
    if exists (select from app.user_identities i where i.user_id = v_user_id and i.provider = v_provider) then
        perform api.fail(409, 'identity_provider_linked', 'This account is already linked to another account of that provider.');
    end if;
    if api.is_guest(v_user_id) then
        v_email := nullif(v_claims ->> 'email', '');
        if v_email is null or v_email !~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' or length(v_email) > 254 then
            return api.problem(400, 'identity_email_missing', 'The provider gave no usable email.');
        end if;
        begin
            update app.users u
            set email = v_email, password_hash = api.hash_password(encode(gen_random_bytes(32), 'base64')),
                email_verified_at = case when coalesce((v_claims ->> 'email_verified')::boolean, false) then now() end,
                updated_at = now()
            where u.id = v_user_id;
        exception when unique_violation then
            return api.link_required(v_provider, me_identities_create.params);
        end;
    end if;
    perform api.record_birth(v_user_id, v_birth);
    insert into app.user_identities (provider, subject, user_id, email, client_id, apple_refresh_token)
    values (v_provider, v_claims ->> 'subject', v_user_id, nullif(v_claims ->> 'email', ''), v_claims ->> 'client_id',
            v_claims ->> 'refresh_token')
    returning * into v_identity;
    return api.ok(api.identity_json(v_identity));
end
$$;
grant execute on function api.me_identities_create(text, jsonb, jsonb) to focus_api;
comment on function api.me_identities_create(text, jsonb, jsonb) is
    'POST /me/identities: links a verified Apple or Google identity to the signed-in account (201); 409 when another '
    'account has it or the account has another of that provider.';
insert into api.endpoints (method, path, function, status, body, errors)
values ('POST', '/me/identities', 'api.me_identities_create', 201, 'json',
        '{account_exists_link_required, account_suspended, identity_email_missing, identity_keys_unavailable, '
        'identity_linked_elsewhere, identity_nonce_mismatch, identity_provider_linked, identity_token_expired, '
        'identity_token_invalid, identity_token_unknown_key, identity_token_wrong_audience, identity_token_wrong_issuer, '
        'invalid_authorization_code, invalid_field, sign_in_provider_unavailable, too_many_attempts}');

-- GET /me/identities: {identities: [Identity]}, the caller's linked providers, oldest first.
create function api.me_identities_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_identities_list.token);
begin
    return api.ok(jsonb_build_object('identities', coalesce(
        (select jsonb_agg(api.identity_json(i) order by i.created_at, i.provider)
         from app.user_identities i where i.user_id = v_user_id), '[]')));
end
$$;
grant execute on function api.me_identities_list(text, jsonb, jsonb) to focus_api;
comment on function api.me_identities_list(text, jsonb, jsonb) is
    'GET /me/identities: the Apple and Google accounts linked to the caller (provider, email, dates; never the subject).';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/identities', 'api.me_identities_list', '{account_suspended}');

-- For `focus-island apple-revoke`: up to `batch` due revocations, oldest first, locked
-- FOR UPDATE SKIP LOCKED until the caller's transaction ends (senders running at once never
-- take one twice): [{id, client_id, refresh_token, attempts}].
create function api.apple_revocations_claim(batch integer)
returns jsonb
language sql volatile security definer set search_path = public, pg_temp
as $$
    with due as (
        select r.id, r.client_id, r.refresh_token, r.attempts from app.apple_revocations r
        where r.send_after <= now()
        order by r.send_after, r.id
        limit least(greatest(apple_revocations_claim.batch, 1), 500)
        for update skip locked)
    select coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'client_id', d.client_id,
                                                 'refresh_token', d.refresh_token, 'attempts', d.attempts)
                              order by d.id), '[]')
    from due d
$$;
grant execute on function api.apple_revocations_claim(integer) to focus_api;
comment on function api.apple_revocations_claim(integer) is
    'Not an endpoint: `focus-island apple-revoke` claims due revocations (FOR UPDATE SKIP LOCKED) in a transaction it '
    'ends with api.apple_revocations_settle.';

-- For the sender, in the transaction of its claim: each result {id, outcome: sent|retry|failed,
-- retry_after?, error?}. sent (Apple answered 200) and failed (a refusal no retry mends, such as
-- invalid_grant: the token is already dead) delete the row; retry (429, 5xx, no answer) counts
-- an attempt and waits max(retry_after, 2^attempts seconds), at most an hour, and deletes the row
-- at its 12th attempt. Answers {sent, retried, dropped, failed}.
create function api.apple_revocations_settle(results jsonb)
returns jsonb
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_sent integer;
    v_failed integer;
    v_dropped integer;
    v_retried integer;
begin
    if exists (select from api.push_results(apple_revocations_settle.results) r
               where r.outcome is null or r.outcome not in ('sent', 'retry', 'failed')) then
        raise exception 'api.apple_revocations_settle: an outcome is not sent, retry or failed';
    end if;
    with gone as (delete from app.apple_revocations o using api.push_results(apple_revocations_settle.results) r
                  where o.id = r.id and r.outcome = 'sent' returning o.id)
    select count(*)::integer into v_sent from gone;
    with gone as (delete from app.apple_revocations o using api.push_results(apple_revocations_settle.results) r
                  where o.id = r.id and r.outcome = 'failed' returning o.id)
    select count(*)::integer into v_failed from gone;
    with gone as (delete from app.apple_revocations o using api.push_results(apple_revocations_settle.results) r
                  where o.id = r.id and r.outcome = 'retry' and o.attempts + 1 >= 12 returning o.id)
    select count(*)::integer into v_dropped from gone;
    with moved as (
        update app.apple_revocations o
        set attempts = o.attempts + 1, last_error = left(r.error, 200),
            send_after = now() + make_interval(secs => least(greatest(coalesce(r.retry_after, 0), 2 ^ (o.attempts + 1)), 3600))
        from api.push_results(apple_revocations_settle.results) r
        where o.id = r.id and r.outcome = 'retry'
        returning o.id)
    select count(*)::integer into v_retried from moved;
    return jsonb_build_object('sent', v_sent, 'retried', v_retried, 'dropped', v_dropped, 'failed', v_failed);
end
$$;
grant execute on function api.apple_revocations_settle(jsonb) to focus_api;
comment on function api.apple_revocations_settle(jsonb) is
    'Not an endpoint: `focus-island apple-revoke` records what Apple answered for the revocations it claimed: sent and '
    'failed go, 429 and 5xx wait (backoff, Retry-After) up to 12 attempts.';
