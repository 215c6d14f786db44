-- api core: the reply every endpoint returns, error raising, body parsing, field readers,
-- and authentication. Endpoints take (token text, params jsonb, body): `params` holds path and
-- query parameters as strings, `body` the parsed JSON body (jsonb), or the raw bytes (bytea)
-- for an image route. Every function here is SECURITY DEFINER (or pure) with
-- search_path = public, pg_temp, and names every table with its schema.
--
-- Endpoint names, one grammar: the resource as its path reads (`/friend-requests` →
-- friend_requests, `/me/avatar` → me_avatar) then one verb: list, get, create, update
-- (PUT and PATCH), delete, or the action the path names (register, login, logout, sync, start,
-- finish, abandon, rate, accept, decline, confirm, resolve, rename, suspend, ban, join, leave, upgrade), or `open` for what the server calls when it opens a
-- stream (api.events_stream_open, for GET /events as text/event-stream). `POST /friend-requests/{id}/accept` is
-- api.friend_requests_accept; grep the route table or sql/tests for that name to find both.
-- Helpers that are not endpoints are named for what they do (authenticate, lock_user).
--
-- Volatility: a function that can raise is never IMMUTABLE (the planner may fold an immutable
-- call with constant arguments at plan time, raising in a branch that would never run), so
-- the field readers are VOLATILE; functions that only read the database are STABLE.
-- Speed (2026-12-02, docs/performance.md "Plans kept"): a one-expression SQL helper is written
-- so the planner can inline it: STABLE, not IMMUTABLE, when its body calls a stable function
-- (jsonb_build_object, to_char, extract on a timestamptz), since PostgreSQL never inlines an
-- IMMUTABLE function whose body is not; a SECURITY DEFINER helper that reads tables is
-- PL/pgSQL returning its query, since PostgreSQL 15 plans a SQL function's body again on every
-- call of the statement that calls it, while PL/pgSQL keeps its plans for the session
-- (sql/tests/000_structure.sql holds both rules).
-- Endpoints read the body's keys with `v_body jsonb := api.only_keys(...)` as their first body
-- read, so an unknown (typo'd) key is reported before any field is found missing.

grant usage on schema api to focus_api;

-- What an endpoint answers. status null means the route's success status.
-- code and message are set for a problem answered without raising (login must keep the
-- failed attempt it recorded, which a raised error would roll back).
create type api.reply as (
    status       integer,
    body         jsonb,
    etag         text,
    retry_after  integer,
    code         text,
    message      text
);

-- A successful reply; status only when it differs from the route's.
create function api.ok(body jsonb, status integer default null, etag text default null)
returns api.reply
language sql immutable
as $$ select row(ok.status, ok.body, ok.etag, null, null, null)::api.reply $$;

-- A problem reply that does not roll back the transaction.
create function api.problem(status integer, code text, message text, extra jsonb default null,
                            retry_after integer default null)
returns api.reply
language sql immutable
as $$ select row(problem.status, problem.extra, null, problem.retry_after, problem.code, problem.message)::api.reply $$;

-- Raises the error the HTTP layer turns into problem+json: SQLSTATE PTnnn gives the status,
-- DETAIL the stable code, HINT extra members as a JSON object. Codes: docs/errors.md.
-- COLUMN carries the signed-in user (focus.user_id, set by api.authenticate) to the server's
-- log line only: the error rolls the transaction back, so no reply row can say who it was, and
-- a PT error names no column of its own (2026-12-05).
-- Volatile on purpose: an immutable raiser could be folded at plan time in an untaken branch.
create function api.fail(status integer, code text, message text, extra jsonb default null)
returns void
language plpgsql volatile
as $$
begin
    raise exception using errcode = 'PT' || fail.status, message = fail.message, detail = fail.code,
                          hint = coalesce(fail.extra::text, ''),
                          column = coalesce(current_setting('focus.user_id', true), '');
end
$$;

-- 400 invalid_field for one field: "<field> <problem>", with the field as an extra member.
create function api.fail_field(field text, problem text)
returns void
language sql volatile
as $$ select api.fail(400, 'invalid_field', fail_field.field || ' ' || fail_field.problem,
                      jsonb_build_object('field', fail_field.field)) $$;

create function api.is_uuid(value text)
returns boolean
language sql immutable
as $$ select is_uuid.value ~* '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$' $$;

-- `value` if it is one of `choices`; otherwise (null included) 400 invalid_field.
create function api.choice(value text, field text, choices text[])
returns text
language plpgsql volatile
as $$
begin
    if choice.value is null or choice.value <> all (choice.choices) then
        perform api.fail_field(choice.field, 'must be ' || array_to_string(choice.choices, ', ', '') || '.');
    end if;
    return choice.value;
end
$$;

-- The request body as a JSON object; anything else is 400 invalid_json.
create function api.parse_body(body text)
returns jsonb
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb;
begin
    if coalesce(btrim(parse_body.body), '') = '' then
        perform api.fail(400, 'invalid_json', 'The body is empty; send a JSON object.');
    end if;
    -- Any failure to parse is the client's: invalid text (class 22) and also nesting deeper
    -- than the parser's stack allows (54001 statement_too_complex, "stack depth limit
    -- exceeded", class 54), which is how `[[[[…]]]]` thirty thousand deep fails.
    begin
        v_body := parse_body.body::jsonb;
    exception when data_exception or program_limit_exceeded then
        perform api.fail(400, 'invalid_json', 'The body is not valid JSON.');
    end;
    if jsonb_typeof(v_body) <> 'object' then
        perform api.fail(400, 'invalid_json', 'The body must be a JSON object.');
    end if;
    return v_body;
end
$$;
grant execute on function api.parse_body(text) to focus_api;

-- The body, once it holds no key the endpoint does not know, so a typo is an error rather
-- than ignored (400 invalid_field naming the key).
create function api.only_keys(body jsonb, allowed text[])
returns jsonb
language plpgsql volatile
as $$
declare
    v_key text;
begin
    select k into v_key from jsonb_object_keys(only_keys.body) as k where k <> all (only_keys.allowed) limit 1;
    if v_key is not null then
        perform api.fail_field(v_key, 'is not a field here.');
    end if;
    return only_keys.body;
end
$$;

-- Field readers: a missing required field or a value of the wrong JSON type is 400 invalid_field
-- naming the field. An absent optional field (or JSON null) reads as SQL null.
create function api.json_field(body jsonb, field text, json_type text, required boolean, expected text)
returns jsonb
language plpgsql volatile
as $$
declare
    v_value jsonb := json_field.body -> json_field.field;
begin
    if v_value is null or jsonb_typeof(v_value) = 'null' then
        if json_field.required then
            perform api.fail_field(json_field.field, 'is required.');
        end if;
        return null;
    end if;
    if jsonb_typeof(v_value) <> json_field.json_type then
        perform api.fail_field(json_field.field, format('must be %s.', json_field.expected));
    end if;
    return v_value;
end
$$;

-- Every string read has a length limit (1,000 characters unless the field says otherwise),
-- checked here, before the endpoint can write anything: an 8 KB email must be a 400, not a
-- row too big for an index.
create function api.text_field(body jsonb, field text, required boolean default true,
                               max_length integer default 1000)
returns text
language plpgsql volatile
as $$
declare
    v_text text := api.json_field(text_field.body, text_field.field, 'string', text_field.required, 'a string') #>> '{}';
begin
    if length(v_text) > text_field.max_length then
        perform api.fail_field(text_field.field, format('must be at most %s characters.', text_field.max_length));
    end if;
    return v_text;
end
$$;

create function api.boolean_field(body jsonb, field text, required boolean default true)
returns boolean
language sql volatile
as $$ select api.json_field(boolean_field.body, boolean_field.field, 'boolean', boolean_field.required, 'true or false')::boolean $$;

-- A whole number within [minimum, maximum]; 1.5, "3" and 1e40 are refused.
create function api.integer_field(body jsonb, field text, minimum integer, maximum integer,
                                  required boolean default true)
returns integer
language plpgsql volatile
as $$
declare
    v_expected text := format('a whole number from %s to %s', integer_field.minimum, integer_field.maximum);
    v_number numeric := api.json_field(integer_field.body, integer_field.field, 'number',
                                       integer_field.required, v_expected)::numeric;
begin
    if v_number <> trunc(v_number) or v_number not between integer_field.minimum and integer_field.maximum then
        perform api.fail_field(integer_field.field, format('must be %s.', v_expected));
    end if;
    return v_number::integer;
end
$$;

-- A whole-number query parameter (query values arrive as strings).
create function api.integer_param(params jsonb, name text, minimum integer, maximum integer, fallback integer)
returns integer
language plpgsql volatile
as $$
declare
    v_text text := integer_param.params ->> integer_param.name;
begin
    if v_text is null then
        return integer_param.fallback;
    end if;
    if v_text !~ '^\d{1,9}$' or v_text::integer not between integer_param.minimum and integer_param.maximum then
        perform api.fail_field(integer_param.name, format('must be a whole number from %s to %s.', integer_param.minimum, integer_param.maximum));
    end if;
    return v_text::integer;
end
$$;

-- A UUID given as a string (in the body or as a path parameter).
create function api.uuid_field(body jsonb, field text, required boolean default true)
returns uuid
language plpgsql volatile
as $$
declare
    v_text text := api.text_field(uuid_field.body, uuid_field.field, uuid_field.required);
begin
    if v_text is null then
        return null;
    end if;
    if not api.is_uuid(v_text) then
        perform api.fail_field(uuid_field.field, 'must be a UUID.');
    end if;
    return v_text::uuid;
end
$$;

-- A timestamp with an explicit offset (RFC 3339), e.g. 2026-11-30T08:00:00Z.
create function api.time_field(body jsonb, field text, required boolean default true)
returns timestamptz
language plpgsql stable
as $$
declare
    v_text text := api.text_field(time_field.body, time_field.field, time_field.required);
    v_time timestamptz;
begin
    if v_text is null then
        return null;
    end if;
    if v_text !~ '^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:?\d\d)$' then
        perform api.fail_field(time_field.field, 'must be an RFC 3339 time with an offset, like 2026-11-30T08:00:00Z.');
    end if;
    begin
        v_time := v_text::timestamptz;
    exception when data_exception then
        perform api.fail_field(time_field.field, 'is not a valid time.');
    end;
    return v_time;
end
$$;

-- RFC 3339 in UTC with microseconds, the one time format of the API.
create function api.iso(value timestamptz)
returns text
language sql stable
as $$ select to_char(iso.value at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

-- The user a bearer token belongs to; 401 unauthorized if it is missing, unknown, expired or
-- revoked; 403 account_suspended while a moderator's suspension or ban holds (app.suspensions,
-- migration 0017), with suspended_until (null for a ban), unless `suspended_too`: only export,
-- deletion and logout pass it. Tokens are compared by their SHA-256 digest only. STABLE, so a read stays a read:
-- only when the token's last use is older than auth_settings.token_touch_interval (an hour)
-- does it call the volatile api.touch_token, which records the use and slides the expiry;
-- PostgreSQL forbids writes in the statements of a non-volatile function itself, not in a
-- volatile function it calls, and that write commits with the request. It names the token for
-- the rest of the transaction (focus.acting_token, read by app.acting_token), and its user
-- (focus.user_id), which the server's statement returns beside the reply for the request's log
-- line (Route.statement) and api.fail puts in a raised error; transaction-local, so no other
-- request on the session or behind PgBouncer sees it.
create function api.authenticate(token text, suspended_too boolean default false)
returns uuid
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid;
    v_token_id uuid;
    v_stale boolean;
    v_until timestamptz;
begin
    select t.user_id, t.id, t.last_used_at < now() - s.token_touch_interval
    into v_user_id, v_token_id, v_stale
    from app.auth_tokens t cross join app.auth_settings s
    where t.digest = sha256(convert_to(coalesce(authenticate.token, ''), 'UTF8'))
      and t.revoked_at is null
      and t.expires_at > now();
    if v_user_id is null then
        perform api.fail(401, 'unauthorized', 'The token is missing, unknown, expired or revoked.');
    end if;
    -- The acting token, for this transaction: the events its changes write for the person's own
    -- devices name it, and its own streams leave them out (sql/app/025_own_events.sql). And its
    -- user, for the log line: set before the suspension check, since a suspended account's token
    -- is still valid and its 403 is still that user's request.
    perform set_config('focus.acting_token', v_token_id::text, true), set_config('focus.user_id', v_user_id::text, true);
    -- On a read replica (routes that read shared data, READ_DATABASE_URL) nothing can be
    -- written: the use is recorded by the next request the token makes to the primary.
    if v_stale and not pg_is_in_recovery() then
        perform api.touch_token(v_token_id);
    end if;
    if not authenticate.suspended_too then
        select s.until into v_until from app.suspensions s where s.user_id = v_user_id and s.until > now();
        if v_until is not null then
            perform api.fail(403, 'account_suspended', 'This account is suspended; you may still export or delete it.',
                             jsonb_build_object('suspended_until', case when v_until < 'infinity' then api.iso(v_until) end));
        end if;
    end if;
    return v_user_id;
end
$$;

-- Locks a user's row and returns it: the one way anything serializes per user. One purchase,
-- earning or rating per user at a time (so balances, the daily cap and tip rotation hold under
-- concurrent requests); friendship transitions lock both users, lower id first (api.lock_pair).
-- An account deleted while the request waited for the lock is 401, so nothing is added to a
-- tombstone.
create function api.lock_user(user_id uuid)
returns app.users
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user app.users;
begin
    select u.* into v_user from app.users u where u.id = lock_user.user_id and u.deleted_at is null for update;
    if v_user.id is null then
        perform api.fail(401, 'unauthorized', 'The token is missing, unknown, expired or revoked.');
    end if;
    return v_user;
end
$$;

-- Records a token's use: last_used_at = now() and the expiry slides to now() + token_ttl, so a
-- phone used at least once a month is never logged out. The condition is checked again under
-- the row's lock, so requests racing past the hour write once.
create function api.touch_token(token_id uuid)
returns void
language sql volatile security definer set search_path = public, pg_temp
as $$
    update app.auth_tokens t
    set last_used_at = now(), expires_at = greatest(t.expires_at, now() + s.token_ttl)
    from app.auth_settings s
    where t.id = touch_token.token_id and t.last_used_at < now() - s.token_touch_interval
$$;
