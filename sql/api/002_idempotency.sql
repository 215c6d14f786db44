-- api idempotency: the Idempotency-Key of a state-changing POST or DELETE (Stripe's way).
-- Every POST and DELETE route's statement for a request with the header is `select … from
-- api.idempotent('api.fn', $1, $2, body)` (Route.keyedStatement); the HTTP layer only passes the
-- header as params.idempotency_key and holds no rule. Without a key, or for an endpoint that only
-- reads (not VOLATILE: the sync routes), this calls the endpoint and nothing else, so a request
-- without the header runs `api.fn` itself (Route.statement), without this function's dynamic
-- EXECUTE, which is planned on every call.
--
-- With a key: the row (scope, key) is inserted BEFORE the work, in the request's transaction.
-- A racing request with the same key waits for the key's lock (app.idempotency_key_lock, held
-- by the first until it commits), then finds the row and replays the stored answer: one
-- execution. If the first rolled back (a raised error), the row vanished with it and the
-- second does the work. Answers made without raising (api.problem: a wrong password, 404
-- user_not_found, a 429) are stored and replayed. Same key, other route or other body: 422
-- idempotency_key_reused. Keys older than app.idempotency_settings.retention (24 h) count as
-- absent and are taken over (deleted, then inserted anew).
--
-- Scope: the user of the bearer token ('user:<id>'); without a token, the email of the body
-- ('email:<email>', register, login, password reset), so two people who picked the same key
-- never meet; for POST /auth/guest and POST /parental-consent, which have neither, the client's
-- address bucket ('address:<bucket>', api.address_bucket). A token that no longer authenticates (after logout, DELETE /me) still replays
-- the keys it made itself, so a retried logout or account deletion answers 204 again.

-- Body fields that are secrets: left out of the digest (a fast hash of a password would be
-- stored otherwise). A request that holds one stores its answer only sealed, with a key that is
-- HMAC-SHA-256 of the whole request under the server's seal key (params.seal_key, which the HTTP
-- layer holds outside the database and passes with keyed requests only): whoever reads
-- app.idempotency_keys cannot open the answer, nor test a password guess against it, without
-- that key. Without a seal key (a caller other than the server) such a request keeps no key.
create function api.secret_fields()
returns text[]
language sql immutable
as $$ select array['password', 'current_password', 'new_password', 'code'] $$;

create function api.idempotent(endpoint text, token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_key text := idempotent.params ->> 'idempotency_key';
    v_seal_key text := idempotent.params ->> 'seal_key';
    v_params jsonb := idempotent.params - 'seal_key';  -- the endpoint never sees the seal key
    v_function regprocedure := to_regprocedure(idempotent.endpoint || '(text, jsonb, jsonb)');
    v_keep boolean := false;  -- true: this request owns the key and stores its answer
    v_token_digest bytea;
    v_user_id uuid;
    v_valid boolean := false;
    v_scope text;
    v_request jsonb;
    v_digest bytea;
    v_sealed boolean := idempotent.body ?| api.secret_fields();
    v_seal text;  -- the sealing key of this request (secrets and the server's seal key in it)
    v_retention interval;
    v_row app.idempotency_keys;
    v_reply api.reply;
begin
    if v_function is null or idempotent.endpoint !~ '^api\.[a-z_]+$' then
        raise exception 'api.idempotent: % is not an endpoint', idempotent.endpoint;
    end if;
    -- The table's rule (0011): visible ASCII, no space. Checked here first, so a key the table
    -- would refuse is the client's 400, not a 422 constraint_violation.
    if v_key is not null and v_key !~ '^[\x21-\x7e]{1,255}$' then
        perform api.fail(400, 'invalid_field', 'Idempotency-Key must be 1 to 255 visible ASCII characters, without spaces.',
                         jsonb_build_object('field', 'Idempotency-Key'));
    end if;

    if v_key is not null and (select p.provolatile from pg_proc p where p.oid = v_function) = 'v'
       and (not v_sealed or length(v_seal_key) >= 32) then
        if idempotent.token is not null then
            v_token_digest := sha256(convert_to(idempotent.token, 'UTF8'));
            select t.user_id, t.revoked_at is null and t.expires_at > now() into v_user_id, v_valid
            from app.auth_tokens t where t.digest = v_token_digest;
            -- A replay runs no endpoint and so no api.authenticate: the log line's user from here.
            if v_valid then
                perform set_config('focus.user_id', v_user_id::text, true);
            end if;
            v_scope := 'user:' || v_user_id;
            if v_user_id is null then  -- gone with DELETE /me: the keys it made itself only
                select k.scope into v_scope from app.idempotency_keys k
                where k.token_digest = v_token_digest and k.key = v_key;
            end if;
        elsif jsonb_typeof(idempotent.body -> 'email') = 'string' then
            v_scope := 'email:' || lower(btrim(idempotent.body ->> 'email'));
        elsif idempotent.endpoint in ('api.auth_guest_create', 'api.parental_consent_confirm') then
            -- Public and with no email (2026-12-07): the client's address bucket, so a phone's
            -- retried POST /auth/guest gets its one guest back, not a second one.
            v_scope := 'address:' || coalesce(host(api.address_bucket(api.client_address(v_params))), '-');
        end if;
    end if;

    -- With somebody to keep the key for (else the endpoint answers: 401, 400): the key first.
    -- The negotiated language is not part of the request (nor the app's version, 0095): a retry with another Accept-Language
    -- replays the first answer, in the first answer's language.
    if v_scope is not null and length(v_scope) <= 400 then
        v_request := jsonb_build_object('route', idempotent.endpoint,
                                        -- identity: what the body's ID token verified (an exchanged
                                        -- refresh token differs on each try), the body says it already.
                                        'params', v_params - array['client_ip', 'user_agent', 'client_version', 'idempotency_key',
                                                                   'language', 'identity'],
                                        'body', idempotent.body);
        v_seal := encode(hmac(convert_to(v_request::text, 'UTF8'), convert_to(v_seal_key, 'UTF8'), 'sha256'), 'hex');
        v_digest := sha256(convert_to(jsonb_set(v_request, '{body}', idempotent.body - api.secret_fields())::text, 'UTF8'));
        select s.retention into v_retention from app.idempotency_settings s;

        -- Waits here for a racing request with this key to commit or roll back (the key's lock:
        -- app.idempotency_keys is partitioned by day and has no unique index on (scope, key)
        -- since 0063), then reads the key with a snapshot taken after it.
        perform app.idempotency_key_lock(v_scope, v_key);
        select * into v_row from app.idempotency_keys k where k.scope = v_scope and k.key = v_key;
        if v_row.scope is null or v_row.created_at < now() - v_retention then
            -- Absent, or past the retention: taken over (a new row in today's partition).
            delete from app.idempotency_keys k where k.scope = v_scope and k.key = v_key;
            insert into app.idempotency_keys (scope, key, route, request_digest, token_digest)
            values (v_scope, v_key, idempotent.endpoint, v_digest, v_token_digest);
            v_keep := true;
        else
            -- A token that no longer authenticates replays only what it made itself; else the endpoint answers 401.
            if v_valid or idempotent.token is null or v_row.token_digest = v_token_digest then
                if v_row.route <> idempotent.endpoint or v_row.request_digest <> v_digest then
                    perform api.fail(422, 'idempotency_key_reused',
                                     'This Idempotency-Key was used for another request; use a new key for a new request.');
                end if;
                if v_row.sealed_reply is not null then
                    begin
                        return jsonb_populate_record(null::api.reply, pgp_sym_decrypt(v_row.sealed_reply, v_seal)::jsonb);
                    exception when external_routine_invocation_exception then  -- another password or code, or seal key
                        perform api.fail(422, 'idempotency_key_reused',
                                         'This Idempotency-Key was used for another request; use a new key for a new request.');
                    end;
                end if;
                if v_row.reply is null then  -- a request is one statement: only SQL calling twice in one transaction
                    raise exception 'api.idempotent: the key % has no answer yet in this transaction', v_key;
                end if;
                return jsonb_populate_record(null::api.reply, v_row.reply);
            end if;
        end if;
    end if;

    -- The endpoint, named by its regproc (an existing function, never text a client wrote).
    -- plpgsql_check cannot type a dynamic statement's result: api.reply, as 000_structure.sql
    -- checks for every endpoint.
    perform 'PRAGMA:disable:other_warnings';
    execute format('select * from %s($1, $2, $3)', v_function::oid::regproc)
    into v_reply using idempotent.token, v_params, idempotent.body;
    perform 'PRAGMA:enable:other_warnings';
    if v_keep and v_sealed then
        update app.idempotency_keys k set sealed_reply = pgp_sym_encrypt(to_jsonb(v_reply)::text, v_seal)
        where k.scope = v_scope and k.key = v_key;
    elsif v_keep then
        update app.idempotency_keys k set reply = to_jsonb(v_reply) where k.scope = v_scope and k.key = v_key;
    end if;
    return v_reply;
end
$$;
grant execute on function api.idempotent(text, text, jsonb, jsonb) to focus_api;
comment on function api.idempotent(text, text, jsonb, jsonb) is
    'Runs a POST or DELETE endpoint under its Idempotency-Key (params.idempotency_key): same key and request '
    'replay the stored answer, another request is 422 idempotency_key_reused; racing ones execute once.';
