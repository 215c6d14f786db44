SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;
CREATE SCHEMA api;
ALTER SCHEMA api OWNER TO focus_owner;
CREATE SCHEMA app;
ALTER SCHEMA app OWNER TO focus_owner;
CREATE SCHEMA report;
ALTER SCHEMA report OWNER TO focus_owner;
CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public;
CREATE TYPE api.file_reply AS (
	status integer,
	content_type text,
	data bytea,
	etag text,
	code text,
	message text
);
ALTER TYPE api.file_reply OWNER TO focus_owner;
CREATE TYPE api.reply AS (
	status integer,
	body jsonb,
	etag text,
	retry_after integer,
	code text,
	message text
);
ALTER TYPE api.reply OWNER TO focus_owner;
SET default_tablespace = '';
SET default_table_access_method = heap;
CREATE TABLE app.friendships (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_low uuid NOT NULL,
    user_high uuid NOT NULL,
    requested_by uuid NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    accepted_at timestamp with time zone,
    CONSTRAINT friendships_check CHECK ((user_low < user_high)),
    CONSTRAINT friendships_check1 CHECK (((requested_by = user_low) OR (requested_by = user_high))),
    CONSTRAINT friendships_check2 CHECK (((status = 'accepted'::text) = (accepted_at IS NOT NULL))),
    CONSTRAINT friendships_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'accepted'::text])))
);
ALTER TABLE app.friendships OWNER TO focus_owner;
CREATE FUNCTION api.accept_pair(pair app.friendships, actor uuid) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_now timestamptz := now();
begin
    update app.friendships f set status = 'accepted', accepted_at = v_now where f.id = pair.id;
    perform api.record_friendship_event(pair, accept_pair.actor, 'accepted');
    return api.friend_json(api.other_user(pair, accept_pair.actor), v_now);
end
$$;
ALTER FUNCTION api.accept_pair(pair app.friendships, actor uuid) OWNER TO focus_owner;
CREATE FUNCTION api.asset_url(key text) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select s.base_url || coalesce((select a.hashed_name from app.assets a where a.key = asset_url.key), asset_url.key)
    from app.asset_settings s
$$;
ALTER FUNCTION api.asset_url(key text) OWNER TO focus_owner;
CREATE FUNCTION api.assets_publish(base_url text, manifest jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_changed boolean := false;
    v_count integer;
begin
    update app.asset_settings s set base_url = assets_publish.base_url
    where s.base_url is distinct from assets_publish.base_url;
    get diagnostics v_count = row_count;
    v_changed := v_count > 0;
    delete from app.assets a where not (assets_publish.manifest ? a.key);
    get diagnostics v_count = row_count;
    v_changed := v_changed or v_count > 0;
    insert into app.assets as a (key, hashed_name)
    select m.key, m.value from jsonb_each_text(assets_publish.manifest) as m(key, value)
    on conflict (key) do update set hashed_name = excluded.hashed_name
    where a.hashed_name <> excluded.hashed_name;
    get diagnostics v_count = row_count;
    v_changed := v_changed or v_count > 0;
    if v_changed then  -- a new catalog version, announced like any catalog change (servers' caches empty)
        update app.catalog_version v set version = v.version + 1, changed_at = now();
        insert into app.events (user_id, type, payload)
        select null, 'catalog.changed', jsonb_build_object('version', v.version) from app.catalog_version v;
    end if;
end
$$;
ALTER FUNCTION api.assets_publish(base_url text, manifest jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.auth_login(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
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
    where f.email = v_email::citext and f.client_ip is not distinct from v_address
      and f.failed_at > now() - v_settings.failed_login_window;
    if v_failures < v_settings.max_failed_logins and not v_known_address then
        -- Every address's failures for this email.
        select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
        from (select f.failed_at
              from app.login_failures f
              where f.email = v_email::citext and f.failed_at > now() - v_settings.failed_login_window
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
ALTER FUNCTION api.auth_login(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.auth_logout(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    perform api.authenticate(auth_logout.token);
    update app.auth_tokens t
    set revoked_at = now()
    where t.digest = sha256(convert_to(auth_logout.token, 'UTF8'));
    return api.ok(null);
end
$$;
ALTER FUNCTION api.auth_logout(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.auth_password_reset_confirm(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_body jsonb := api.only_keys(auth_password_reset_confirm.body, array['email', 'code', 'new_password']);
    v_email text := api.email_field(v_body);
    v_code text := btrim(api.text_field(v_body, 'code'));
    v_new text := api.password_field(v_body, 'new_password');
    v_address inet := api.client_address(auth_password_reset_confirm.params);
    v_wait integer := api.failed_attempts(v_email, 'check', v_address);
    v_reset app.password_resets;
begin
    if v_wait is not null then
        return api.problem(429, 'too_many_attempts', 'Too many wrong codes; wait before trying again.', retry_after => v_wait);
    end if;
    select r.* into v_reset
    from app.password_resets r join app.users u on u.id = r.user_id
    where u.email = v_email::citext and r.digest = sha256(convert_to(v_code, 'UTF8'))
      and r.used_at is null and r.expires_at > now()
    for update of r;
    if v_reset.id is null then
        perform api.failed_attempts(v_email, 'record', v_address);
        return api.problem(400, 'invalid_reset_code', 'The code is wrong, expired or already used.');
    end if;
    perform api.lock_account(v_reset.user_id);
    update app.password_resets r set used_at = now() where r.user_id = v_reset.user_id and r.used_at is null;
    update app.users u set password_hash = api.hash_password(v_new), updated_at = now() where u.id = v_reset.user_id;
    update app.auth_tokens t set revoked_at = now() where t.user_id = v_reset.user_id and t.revoked_at is null;
    perform api.failed_attempts(v_email, 'clear', v_address);
    return api.ok(jsonb_build_object('user', api.profile(v_reset.user_id))
                  || api.issue_token(v_reset.user_id, auth_password_reset_confirm.params));
end
$$;
ALTER FUNCTION api.auth_password_reset_confirm(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.auth_password_reset_create(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_body jsonb := api.only_keys(auth_password_reset_create.body, array['email']);
    v_email text := api.email_field(v_body);
    v_settings app.auth_settings;
    v_user app.users;
    v_code text := lpad((('x' || encode(gen_random_bytes(4), 'hex'))::bit(32)::bigint % 100000000)::text, 8, '0');
begin
    select * into v_settings from app.auth_settings;
    perform pg_advisory_xact_lock(hashtext('reset:' || lower(v_email)));
    select * into v_user from app.users u where u.email = v_email::citext;
    if v_user.id is not null
       and (select count(*) from app.password_resets r
            where r.user_id = v_user.id and r.created_at > now() - v_settings.reset_mail_window) < v_settings.max_reset_mails then
        update app.password_resets r set used_at = now() where r.user_id = v_user.id and r.used_at is null;
        insert into app.password_resets (user_id, digest, expires_at)
        values (v_user.id, sha256(convert_to(v_code, 'UTF8')), now() + v_settings.reset_code_ttl);
        insert into app.outgoing_mail (recipient, subject, body)
        values (v_user.email, 'Your Focus Island password reset code',
                format(E'Your code is %s. It works once, within %s minutes.\nIf you did not ask for it, ignore this mail: your password stays as it is.',
                       v_code, extract(epoch from v_settings.reset_code_ttl)::integer / 60));
    end if;
    return api.ok(null);
end
$$;
ALTER FUNCTION api.auth_password_reset_create(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.auth_register(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_body jsonb := api.only_keys(auth_register.body, array['email', 'password', 'display_name']);
    v_email text := api.email_field(v_body);
    v_password text := api.password_field(v_body, 'password');
    v_display_name text := api.display_name_field(v_body, required => true);
    v_user_id uuid;
begin
    insert into app.users (email, password_hash, display_name)
    values (v_email, api.hash_password(v_password), v_display_name)
    on conflict (email) do nothing
    returning id into v_user_id;
    if v_user_id is null then
        perform api.fail(409, 'email_taken', 'An account with that email already exists.');
    end if;
    perform api.give_starters(v_user_id);
    return api.ok(jsonb_build_object('user', api.profile(v_user_id)) || api.issue_token(v_user_id, auth_register.params));
end
$$;
ALTER FUNCTION api.auth_register(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.authenticate(token text) RETURNS uuid
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid;
    v_token_id uuid;
    v_stale boolean;
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
    -- On a read replica (routes that read shared data, READ_DATABASE_URL) nothing can be
    -- written: the use is recorded by the next request the token makes to the primary.
    if v_stale and not pg_is_in_recovery() then
        perform api.touch_token(v_token_id);
    end if;
    return v_user_id;
end
$$;
ALTER FUNCTION api.authenticate(token text) OWNER TO focus_owner;
CREATE FUNCTION api.avatar_version(updated_at timestamp with time zone) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $$ select (extract(epoch from avatar_version.updated_at) * 1000000)::bigint $$;
ALTER FUNCTION api.avatar_version(updated_at timestamp with time zone) OWNER TO focus_owner;
CREATE FUNCTION api.board_top(period text, key date, entries integer) RETURNS TABLE(user_id uuid, minutes integer)
    LANGUAGE sql STABLE
    AS $$
    (select d.user_id, d.minutes
     from app.daily_minutes d join app.users u on u.id = d.user_id
     where board_top.period = 'daily' and d.day = board_top.key and u.deleted_at is null
     order by d.minutes desc, d.user_id
     limit board_top.entries)
    union all
    (select w.user_id, w.minutes
     from app.weekly_minutes w join app.users u on u.id = w.user_id
     where board_top.period = 'weekly' and w.week = board_top.key and u.deleted_at is null
     order by w.minutes desc, w.user_id
     limit board_top.entries)
$$;
ALTER FUNCTION api.board_top(period text, key date, entries integer) OWNER TO focus_owner;
CREATE FUNCTION api.boolean_field(body jsonb, field text, required boolean DEFAULT true) RETURNS boolean
    LANGUAGE sql
    AS $$ select api.json_field(boolean_field.body, boolean_field.field, 'boolean', boolean_field.required, 'true or false')::boolean $$;
ALTER FUNCTION api.boolean_field(body jsonb, field text, required boolean) OWNER TO focus_owner;
CREATE FUNCTION api.card_json(id uuid, display_name text, has_avatar boolean, avatar_updated_at timestamp with time zone) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
    select jsonb_build_object('id', card_json.id, 'display_name', card_json.display_name,
                              'has_avatar', card_json.has_avatar, 'avatar_version', api.avatar_version(card_json.avatar_updated_at))
$$;
ALTER FUNCTION api.card_json(id uuid, display_name text, has_avatar boolean, avatar_updated_at timestamp with time zone) OWNER TO focus_owner;
CREATE TABLE app.users (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email public.citext,
    password_hash text,
    display_name text NOT NULL,
    show_tip_on_timer boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    balance integer DEFAULT 0 NOT NULL,
    deleted_at timestamp with time zone,
    time_zone text DEFAULT 'UTC'::text NOT NULL,
    CONSTRAINT users_balance_check CHECK ((balance >= 0)),
    CONSTRAINT users_deleted_are_anonymous CHECK (
CASE
    WHEN (deleted_at IS NULL) THEN ((email IS NOT NULL) AND (password_hash IS NOT NULL))
    ELSE ((email IS NULL) AND (password_hash IS NULL) AND (display_name = 'Deleted user'::text))
END),
    CONSTRAINT users_display_name_check CHECK (((display_name = btrim(display_name)) AND ((length(display_name) >= 1) AND (length(display_name) <= 40)) AND (display_name !~ '[[:cntrl:]]'::text))),
    CONSTRAINT users_email_check CHECK (((length((email)::text) <= 254) AND (email OPERATOR(public.~) '^[^@\s]+@[^@\s]+\.[^@\s]+$'::public.citext))),
    CONSTRAINT users_password_hash_check CHECK ((password_hash ~~ '$2_$%'::text)),
    CONSTRAINT users_time_zone_check CHECK (((length(time_zone) >= 1) AND (length(time_zone) <= 64)))
);
ALTER TABLE app.users OWNER TO focus_owner;
CREATE FUNCTION api.check_password(account app.users, password text, client_ip inet) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_wait integer := api.failed_attempts(account.email, 'check', check_password.client_ip);
begin
    if v_wait is not null then
        return api.problem(429, 'too_many_attempts', 'Too many wrong passwords; wait before trying again.',
                           retry_after => v_wait);
    end if;
    if account.password_hash <> crypt(check_password.password, account.password_hash) then
        perform api.failed_attempts(account.email, 'record', check_password.client_ip);
        return api.problem(403, 'wrong_password', 'The password is wrong.');
    end if;
    return api.ok(null);
end
$$;
ALTER FUNCTION api.check_password(account app.users, password text, client_ip inet) OWNER TO focus_owner;
CREATE FUNCTION api.choice(value text, field text, choices text[]) RETURNS text
    LANGUAGE plpgsql
    AS $$
begin
    if choice.value is null or choice.value <> all (choice.choices) then
        perform api.fail_field(choice.field, 'must be ' || array_to_string(choice.choices, ', ', '') || '.');
    end if;
    return choice.value;
end
$$;
ALTER FUNCTION api.choice(value text, field text, choices text[]) OWNER TO focus_owner;
CREATE FUNCTION api.client_address(params jsonb) RETURNS inet
    LANGUAGE plpgsql IMMUTABLE
    AS $_$
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
$_$;
ALTER FUNCTION api.client_address(params jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.display_name_field(body jsonb, required boolean) RETURNS text
    LANGUAGE plpgsql
    AS $$
declare
    v_name text := btrim(api.text_field(display_name_field.body, 'display_name', display_name_field.required));
begin
    if length(v_name) not between 1 and 40 or v_name ~ '[[:cntrl:]]' then
        perform api.fail(400, 'invalid_display_name', 'Use a display name of 1 to 40 characters.');
    end if;
    return v_name;
end
$$;
ALTER FUNCTION api.display_name_field(body jsonb, required boolean) OWNER TO focus_owner;
CREATE FUNCTION api.email_field(body jsonb, field text DEFAULT 'email'::text) RETURNS text
    LANGUAGE plpgsql
    AS $_$
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
$_$;
ALTER FUNCTION api.email_field(body jsonb, field text) OWNER TO focus_owner;
CREATE FUNCTION api.end_request(token text, params jsonb, side text, action text) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(end_request.token);
    v_pair app.friendships := api.pending_request(api.uuid_field(end_request.params, 'id'), v_user_id, end_request.side);
begin
    delete from app.friendships f where f.id = v_pair.id;
    perform api.record_friendship_event(v_pair, v_user_id, end_request.action);
    return api.ok(null);
end
$$;
ALTER FUNCTION api.end_request(token text, params jsonb, side text, action text) OWNER TO focus_owner;
CREATE FUNCTION api.event_cursor(params jsonb) RETURNS bigint
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $_$
declare
    v_text text := event_cursor.params ->> 'after';
begin
    if v_text is null then
        return null;
    end if;
    if v_text !~ '^\d{1,19}$' or v_text::numeric > api.newest_event_id() then
        perform api.fail_field('after', 'must be an event id you were given: a whole number from 0 to the newest id.');
    end if;
    return v_text::bigint;
end
$_$;
ALTER FUNCTION api.event_cursor(params jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.events_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(events_list.token);
    v_after bigint := api.event_cursor(events_list.params);
    v_limit integer := api.integer_param(events_list.params, 'limit', 1, 1000, 100);
    v_newest bigint;
    v_events jsonb;
    v_last bigint;
begin
    perform api.integer_param(events_list.params, 'wait', 0, 60, 0);  -- checked here, waited by the server
    if v_after is null then
        return api.ok(jsonb_build_object('events', '[]'::jsonb, 'next', api.newest_event_id()));
    end if;
    if v_after < (select s.pruned_through from app.event_settings s) then
        v_newest := api.newest_event_id();
        return api.ok(jsonb_build_object('events', jsonb_build_array(jsonb_build_object(
                                             'id', v_newest, 'type', 'resync', 'data', '{}'::jsonb,
                                             'created_at', api.iso(now()))),
                                         'next', v_newest));
    end if;
    -- Event = {id, type, data, created_at}
    select jsonb_agg(jsonb_build_object('id', e.id, 'type', e.type, 'data', e.payload,
                                        'created_at', api.iso(e.created_at)) order by e.id), max(e.id) into v_events, v_last
    from ((select * from app.events e where e.user_id = v_user_id and e.id > v_after order by e.id limit v_limit)
          union all
          (select * from app.events e where e.user_id is null and e.id > v_after order by e.id limit v_limit)
          order by id limit v_limit) e;
    return api.ok(jsonb_build_object('events', coalesce(v_events, '[]'), 'next', coalesce(v_last, v_after)));
end
$$;
ALTER FUNCTION api.events_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.events_prune() RETURNS integer
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select app.prune_idempotency_keys();
    select app.prune_events()
$$;
ALTER FUNCTION api.events_prune() OWNER TO focus_owner;
CREATE FUNCTION api.events_stream_open(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(events_stream_open.token);
    v_after bigint := api.event_cursor(events_stream_open.params);
begin
    -- The stream's later reads take these parameters: refuse bad ones before it opens.
    perform api.integer_param(events_stream_open.params, 'limit', 1, 1000, 100);
    perform api.integer_param(events_stream_open.params, 'wait', 0, 60, 0);
    return api.ok(jsonb_build_object(
        'user_id', v_user_id,
        'max_streams', (select s.max_streams_per_user from app.event_settings s),
        'next', coalesce(v_after, api.newest_event_id())));
end
$$;
ALTER FUNCTION api.events_stream_open(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.fail(status integer, code text, message text, extra jsonb DEFAULT NULL::jsonb) RETURNS void
    LANGUAGE plpgsql
    AS $$
begin
    raise exception using errcode = 'PT' || fail.status, message = fail.message, detail = fail.code,
                          hint = coalesce(fail.extra::text, '');
end
$$;
ALTER FUNCTION api.fail(status integer, code text, message text, extra jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.fail_field(field text, problem text) RETURNS void
    LANGUAGE sql
    AS $$ select api.fail(400, 'invalid_field', fail_field.field || ' ' || fail_field.problem,
                      jsonb_build_object('field', fail_field.field)) $$;
ALTER FUNCTION api.fail_field(field text, problem text) OWNER TO focus_owner;
CREATE FUNCTION api.failed_attempts(email text, action text, client_ip inet DEFAULT NULL::inet) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_settings app.auth_settings;
    v_failures integer;
    v_oldest timestamptz;
begin
    if failed_attempts.action = 'record' then
        insert into app.login_failures (email, client_ip) values (failed_attempts.email, failed_attempts.client_ip);
        return null;
    elsif failed_attempts.action = 'clear' then
        delete from app.login_failures f
        where f.email = failed_attempts.email::citext
          and (failed_attempts.client_ip is null or f.client_ip = failed_attempts.client_ip);
        return null;
    end if;
    select * into v_settings from app.auth_settings;
    perform pg_advisory_xact_lock(hashtext('login:' || lower(failed_attempts.email)));
    select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
    from app.login_failures f
    where f.email = failed_attempts.email::citext and f.client_ip is not distinct from failed_attempts.client_ip
      and f.failed_at > now() - v_settings.failed_login_window;
    if v_failures < v_settings.max_failed_logins then
        select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
        from (select f.failed_at from app.login_failures f
              where f.email = failed_attempts.email::citext and f.failed_at > now() - v_settings.failed_login_window
              order by f.failed_at desc
              limit v_settings.max_failed_logins_per_email) f;
        if v_failures < v_settings.max_failed_logins_per_email then
            return null;
        end if;
    end if;
    return greatest(1, ceil(extract(epoch from v_oldest + v_settings.failed_login_window - now()))::integer);
end
$$;
ALTER FUNCTION api.failed_attempts(email text, action text, client_ip inet) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_abandon(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_abandon.token);
    v_id uuid := api.uuid_field(focus_sessions_abandon.params, 'id');
    v_session app.focus_sessions;
    v_end timestamptz;
begin
    v_session := api.own_session(v_user_id, v_id);
    if v_session.abandoned then
        return api.session_reply(v_id);
    end if;
    if v_session.ended_at is not null then
        perform api.fail(409, 'session_finished', 'The session already ended; only a running session can be abandoned.');
    end if;
    v_end := api.live_end(v_session);
    update app.focus_sessions s
    set ended_at = v_end, occupies = tstzrange(s.started_at, v_end), minutes = 0, abandoned = true
    where s.id = v_id;
    return api.session_reply(v_id);
end
$$;
ALTER FUNCTION api.focus_sessions_abandon(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_batch_create(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_body jsonb;
    v_sessions jsonb;
    v_item jsonb;
    v_created api.reply;
    v_rated api.reply;
    v_result jsonb;
    v_results jsonb := '[]'::jsonb;
    v_state text;
    v_message text;
    v_code text;
    v_extra text;
begin
    perform api.authenticate(focus_sessions_batch_create.token);
    v_body := api.only_keys(focus_sessions_batch_create.body, array['sessions']);
    v_sessions := api.json_field(v_body, 'sessions', 'array', true, 'an array of sessions');
    if jsonb_array_length(v_sessions) not between 1 and 100 then
        perform api.fail_field('sessions', 'must hold 1 to 100 sessions.');
    end if;
    for v_item in select e.value from jsonb_array_elements(v_sessions) as e(value) loop
        begin
            if jsonb_typeof(v_item) <> 'object' then
                perform api.fail_field('sessions', 'must hold only session objects.');
            end if;
            -- The rating is checked first, so an item with a bad rating records nothing.
            if v_item ? 'rating' then
                perform api.choice(api.text_field(v_item, 'rating', required => false), 'rating', array['good', 'fine', 'bad']);
            end if;
            v_created := api.focus_sessions_create(focus_sessions_batch_create.token, '{}', v_item - 'rating');
            v_result := jsonb_build_object('status', coalesce(v_created.status, 201), 'body', v_created.body);
            if v_item ->> 'rating' is not null then
                v_rated := api.focus_sessions_rate(focus_sessions_batch_create.token,
                                                   jsonb_build_object('id', v_item ->> 'id'),
                                                   jsonb_build_object('rating', v_item ->> 'rating'));
                v_result := jsonb_set(v_result, '{body}', (api.session_reply((v_item ->> 'id')::uuid)).body
                                                          || jsonb_build_object('tip', v_rated.body -> 'tip'));
            end if;
        exception when sqlstate 'PT400' or sqlstate 'PT404' or sqlstate 'PT409' or sqlstate 'PT422' then
            get stacked diagnostics v_state = returned_sqlstate, v_message = message_text,
                                    v_code = pg_exception_detail, v_extra = pg_exception_hint;
            v_result := jsonb_build_object('status', substr(v_state, 3)::integer,
                                           'problem', api.problem_json(substr(v_state, 3)::integer, v_code, v_message, v_extra));
        end;
        v_results := v_results || jsonb_build_array(v_result);
    end loop;
    return api.ok(jsonb_build_object('results', v_results));
end
$$;
ALTER FUNCTION api.focus_sessions_batch_create(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_create(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_create.token);
    v_body jsonb := api.only_keys(focus_sessions_create.body, array['id', 'started_at', 'ended_at', 'planned_minutes']);
    v_id uuid := api.uuid_field(v_body, 'id');
    v_started timestamptz := api.time_field(v_body, 'started_at');
    v_ended timestamptz := api.time_field(v_body, 'ended_at');
    v_planned integer := api.integer_field(v_body, 'planned_minutes', 1, 1440, required => false);
    v_settings app.economy_settings;
    v_existing app.focus_sessions;
begin
    select * into v_settings from app.economy_settings;
    if v_ended <= v_started then
        perform api.fail(422, 'invalid_session', 'The session ends before it starts.');
    end if;
    if v_ended > now() + v_settings.clock_skew then
        perform api.fail(422, 'invalid_session', 'The session ends in the future.');
    end if;
    if v_ended - v_started > make_interval(mins => v_settings.max_session_minutes) then
        perform api.fail(422, 'invalid_session',
                         format('A session lasts at most %s minutes.', v_settings.max_session_minutes));
    end if;
    if v_ended < now() - v_settings.offline_max_age then
        perform api.fail(422, 'invalid_session', 'The session is too old to be recorded.');
    end if;
    perform api.lock_user(v_user_id);
    -- The same id again: the same session answers 200 as before; anything else is a conflict.
    -- A replay may leave out the optional planned_minutes (a phone that lost it in its queue).
    select * into v_existing from app.focus_sessions s where s.id = v_id;
    if v_existing.id is not null then
        if v_existing.user_id = v_user_id and v_existing.source = 'offline'
           and v_existing.started_at = v_started and v_existing.ended_at = v_ended
           and (v_planned is null or v_existing.planned_minutes is not distinct from v_planned) then
            return api.session_reply(v_id, status => 200);
        end if;
        perform api.fail(409, 'session_conflict', 'A different session was already recorded with this id.');
    end if;
    begin
        insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, ended_at, occupies, minutes)
        values (v_id, v_user_id, 'offline', v_planned, v_started, v_ended, tstzrange(v_started, v_ended),
                floor(extract(epoch from v_ended - v_started) / 60)::integer);
    exception
        when exclusion_violation then
            perform api.fail(409, 'session_overlap', 'Another session already covers part of this time.');
        when unique_violation then  -- another user's session has this id
            perform api.fail(409, 'session_conflict', 'A different session was already recorded with this id.');
    end;
    perform api.pay_session(v_id);
    return api.session_reply(v_id);
end
$$;
ALTER FUNCTION api.focus_sessions_create(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_current_get(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_current_get.token);
    v_session app.focus_sessions;
    v_max integer;
begin
    select * into v_session from app.focus_sessions s where s.user_id = v_user_id and s.ended_at is null;
    if v_session.id is null then
        return api.ok(null, status => 204);  -- the route's own status too
    end if;
    select e.max_session_minutes into v_max from app.economy_settings e;
    return api.ok(jsonb_build_object(
        'session', api.session_json(v_session) || jsonb_build_object(
            'ends_at', api.iso(v_session.started_at + make_interval(mins => least(coalesce(v_session.planned_minutes, v_max), v_max)))),
        'now', api.iso(now())), status => 200);
end
$$;
ALTER FUNCTION api.focus_sessions_current_get(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_finish(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_finish.token);
    v_id uuid := api.uuid_field(focus_sessions_finish.params, 'id');
    v_session app.focus_sessions;
    v_end timestamptz;
begin
    v_session := api.own_session(v_user_id, v_id);
    if v_session.ended_at is not null then
        return api.session_reply(v_id);  -- finishing twice answers the same (an abandoned one: as abandoned)
    end if;
    v_end := api.live_end(v_session);
    update app.focus_sessions s
    set ended_at = v_end, occupies = tstzrange(s.started_at, v_end),
        minutes = floor(extract(epoch from v_end - s.started_at) / 60)::integer
    where s.id = v_id;
    perform api.pay_session(v_id);
    return api.session_reply(v_id);
end
$$;
ALTER FUNCTION api.focus_sessions_finish(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_list.token);
    v_from timestamptz := coalesce(api.time_field(focus_sessions_list.params, 'from', required => false), now() - interval '30 days');
    v_to timestamptz := coalesce(api.time_field(focus_sessions_list.params, 'to', required => false), 'infinity');
begin
    return (
        select api.ok(jsonb_build_object(
            'sessions', coalesce(jsonb_agg(api.session_json(s) order by s.started_at desc), '[]'),
            'total_minutes', coalesce(sum(s.minutes), 0),
            'total_coins_earned', coalesce(sum(s.coins_earned), 0)))
        from app.focus_sessions s
        where s.user_id = v_user_id and s.started_at >= v_from and s.started_at < v_to);
end
$$;
ALTER FUNCTION api.focus_sessions_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_rate(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_rate.token);
    v_body jsonb := api.only_keys(focus_sessions_rate.body, array['rating']);
    v_id uuid := api.uuid_field(focus_sessions_rate.params, 'id');
    v_rating text := api.choice(api.text_field(v_body, 'rating'), 'rating', array['good', 'fine', 'bad']);
    v_session app.focus_sessions;
    v_tip app.mindfulness_tips;
begin
    v_session := api.own_session(v_user_id, v_id);
    if v_session.ended_at is null then
        perform api.fail(409, 'session_not_finished', 'Finish the session before rating it.');
    end if;
    -- The same rating again (a retry): the tip this session was given, nothing new recorded.
    if v_session.rating = v_rating then
        select t.* into v_tip
        from app.tip_views v join app.mindfulness_tips t on t.id = v.tip_id
        where v.session_id = v_id
        order by v.shown_at desc, v.id desc
        limit 1;
        if v_tip.id is null or v_tip.rating_level = v_rating then
            return api.ok(jsonb_build_object('session', api.session_json(v_session),
                                             'tip', case when v_tip.id is not null then api.tip_json(v_tip) end));
        end if;
    end if;
    update app.focus_sessions s set rating = v_rating, rated_at = now() where s.id = v_id
    returning * into v_session;
    select t.* into v_tip
    from app.mindfulness_tips t
    left join lateral (select max(v.shown_at) as last_shown
                       from app.tip_views v
                       where v.user_id = v_user_id and v.tip_id = t.id) seen on true
    where t.rating_level = v_rating and t.active
    order by seen.last_shown nulls first, random()
    limit 1;
    if v_tip.id is not null then
        insert into app.tip_views (user_id, tip_id, session_id) values (v_user_id, v_tip.id, v_id);
    end if;
    return api.ok(jsonb_build_object('session', api.session_json(v_session),
                                     'tip', case when v_tip.id is not null then api.tip_json(v_tip) end));
end
$$;
ALTER FUNCTION api.focus_sessions_rate(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.focus_sessions_start(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_start.token);
    v_body jsonb := api.only_keys(focus_sessions_start.body, array['planned_minutes']);
    v_settings app.economy_settings;
    v_planned integer;
    v_running uuid;
    v_session app.focus_sessions;
begin
    select * into v_settings from app.economy_settings;
    v_planned := api.integer_field(v_body, 'planned_minutes', 1, v_settings.max_session_minutes);
    perform api.lock_user(v_user_id);
    select s.id into v_running from app.focus_sessions s where s.user_id = v_user_id and s.ended_at is null;
    if v_running is not null then
        perform api.fail(409, 'session_in_progress', 'Finish the session that is running first.',
                         jsonb_build_object('id', v_running));
    end if;
    begin
        insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, occupies)
        values (gen_random_uuid(), v_user_id, 'live', v_planned, now(),
                tstzrange(now(), now() + make_interval(mins => v_settings.max_session_minutes)))
        returning * into v_session;
    exception when exclusion_violation then
        perform api.fail(409, 'session_overlap', 'Another session already covers this time.');
    end;
    return api.ok(jsonb_build_object('session', api.session_json(v_session)));
end
$$;
ALTER FUNCTION api.focus_sessions_start(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.friend_json(user_id uuid, befriended_at timestamp with time zone) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select api.user_card(friend_json.user_id)
           || jsonb_build_object('selected', api.selected_json(friend_json.user_id),
                                 'befriended_at', api.iso(friend_json.befriended_at),
                                 'today_minutes', api.today_minutes(friend_json.user_id))
$$;
ALTER FUNCTION api.friend_json(user_id uuid, befriended_at timestamp with time zone) OWNER TO focus_owner;
CREATE FUNCTION api.friend_requests_accept(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(friend_requests_accept.token);
    v_id uuid := api.uuid_field(friend_requests_accept.params, 'id');
    v_pair app.friendships;
begin
    -- Accepting again (a retry): the request you received was accepted and is still this
    -- friendship (a friendship keeps its request's id), so answer the friend as before.
    select * into v_pair from app.friendships f where f.id = v_id and v_user_id in (f.user_low, f.user_high);
    if v_pair.id is not null then
        v_pair := api.lock_pair(v_pair.user_low, v_pair.user_high);  -- re-read under the pair's lock
    end if;
    if v_pair.id = v_id and v_pair.status = 'accepted' and v_pair.requested_by <> v_user_id then
        return api.ok(jsonb_build_object('friend', api.friend_json(api.other_user(v_pair, v_user_id), v_pair.accepted_at)));
    end if;
    v_pair := api.pending_request(v_id, v_user_id, 'receiver');
    return api.ok(jsonb_build_object('friend', api.accept_pair(v_pair, v_user_id)));
end
$$;
ALTER FUNCTION api.friend_requests_accept(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.friend_requests_create(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(friend_requests_create.token);
    v_body jsonb := api.only_keys(friend_requests_create.body, array['email']);
    v_email text := api.email_field(v_body);
    v_settings app.social_settings;
    v_attempts integer;
    v_oldest timestamptz;
    v_other uuid;
    v_pair app.friendships;
begin
    select * into v_settings from app.social_settings;
    perform pg_advisory_xact_lock(hashtext('friend-requests:' || v_user_id));
    select count(*)::integer, min(a.attempted_at) into v_attempts, v_oldest
    from app.friend_request_attempts a
    where a.user_id = v_user_id and a.attempted_at > now() - v_settings.friend_request_window;
    if v_attempts >= v_settings.max_friend_requests then
        return api.problem(429, 'too_many_friend_requests', 'You sent too many friend requests; wait before sending more.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.friend_request_window - now()))::integer));
    end if;
    insert into app.friend_request_attempts (user_id) values (v_user_id);
    select u.id into v_other from app.users u where u.email = v_email::citext;
    if v_other is null or exists (select from app.blocks b where b.blocker = v_other and b.blocked = v_user_id) then
        return api.problem(404, 'user_not_found', 'Nobody has an account with that email.');
    end if;
    if exists (select from app.blocks b where b.blocker = v_user_id and b.blocked = v_other) then
        perform api.fail(409, 'user_blocked', 'You blocked that user; unblock them first.');
    end if;
    if v_other = v_user_id then
        perform api.fail(422, 'cannot_friend_self', 'You cannot send a friend request to yourself.');
    end if;
    v_pair := api.lock_pair(v_user_id, v_other);
    if v_pair.status = 'accepted' then
        perform api.fail(409, 'already_friends', 'You are already friends.');
    elsif v_pair.status = 'pending' and v_pair.requested_by = v_user_id then
        -- Asking again (a retry) answers the pending request, 200 instead of 201.
        return api.ok(jsonb_build_object('request', jsonb_build_object(
            'id', v_pair.id, 'to', api.user_card(v_other), 'created_at', api.iso(v_pair.created_at))), status => 200);
    elsif v_pair.status = 'pending' then
        -- They had already asked you: asking back accepts.
        return api.ok(jsonb_build_object('friend', api.accept_pair(v_pair, v_user_id), 'auto_accepted', true), status => 200);
    end if;
    if (select count(*) from app.friendships f where f.requested_by = v_user_id and f.status = 'pending') >= 50 then
        perform api.fail(429, 'too_many_pending', 'You have 50 pending requests; wait for answers first.');
    end if;
    insert into app.friendships (user_low, user_high, requested_by, status)
    values (least(v_user_id, v_other), greatest(v_user_id, v_other), v_user_id, 'pending')
    returning * into v_pair;
    perform api.record_friendship_event(v_pair, v_user_id, 'asked');
    return api.ok(jsonb_build_object('request', jsonb_build_object(
        'id', v_pair.id, 'to', api.user_card(v_other), 'created_at', api.iso(v_pair.created_at))));
end
$$;
ALTER FUNCTION api.friend_requests_create(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.friend_requests_decline(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$ select api.end_request(friend_requests_decline.token, friend_requests_decline.params, 'receiver', 'declined') $$;
ALTER FUNCTION api.friend_requests_decline(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.friend_requests_delete(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$ select api.end_request(friend_requests_delete.token, friend_requests_delete.params, 'sender', 'cancelled') $$;
ALTER FUNCTION api.friend_requests_delete(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.friend_requests_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(friend_requests_list.token);
    v_body jsonb;
begin
    select jsonb_build_object(
        'incoming', coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'from', api.user_card(f.requested_by),
                                                          'created_at', api.iso(f.created_at)) order by f.created_at, f.id)
                             filter (where f.requested_by <> v_user_id), '[]'),
        'outgoing', coalesce(jsonb_agg(jsonb_build_object('id', f.id,
                                                          'to', api.user_card(api.other_user(f, v_user_id)),
                                                          'created_at', api.iso(f.created_at)) order by f.created_at, f.id)
                             filter (where f.requested_by = v_user_id), '[]'))
    into v_body
    from app.friendships f
    where (f.user_low = v_user_id or f.user_high = v_user_id) and f.status = 'pending';
    return api.ok(v_body, etag => md5(v_body::text));
end
$$;
ALTER FUNCTION api.friend_requests_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.friends_delete(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(friends_delete.token);
    v_other uuid := api.uuid_field(friends_delete.params, 'user_id');
    v_pair app.friendships;
begin
    if exists (select from app.users u where u.id = v_other) then
        v_pair := api.lock_pair(v_user_id, v_other);
    end if;
    if v_pair.status is distinct from 'accepted' then
        perform api.fail(404, 'not_friends', 'You are not friends with that user.');
    end if;
    delete from app.friendships f where f.id = v_pair.id;
    perform api.record_friendship_event(v_pair, v_user_id, 'removed');
    return api.ok(null);
end
$$;
ALTER FUNCTION api.friends_delete(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.friends_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(friends_list.token);
    v_body jsonb;
begin
    -- One set-based query, not api.friend_json per friend: each security-definer call per row
    -- cost a function call with its own search_path (50 friends: 20 ms down to about 1).
    select jsonb_build_object('friends', coalesce(jsonb_agg(
               api.card_json(u.id, u.display_name, a.user_id is not null, a.updated_at)
               || jsonb_build_object('selected', sel.selected, 'befriended_at', api.iso(f.accepted_at),
                                     'today_minutes', coalesce(d.minutes, 0))
               order by f.accepted_at, f.id), '[]'))
    into v_body
    from app.friendships f
    join app.users u on u.id = api.other_user(f, v_user_id)
    left join app.avatars a on a.user_id = u.id
    left join app.daily_minutes d on d.user_id = u.id and d.day = api.local_date(u.time_zone, now())
    cross join lateral api.selections_of(u.id) sel
    where (f.user_low = v_user_id or f.user_high = v_user_id) and f.status = 'accepted';
    return api.ok(v_body, etag => md5(v_body::text));
end
$$;
ALTER FUNCTION api.friends_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.give_starters(user_id uuid) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    insert into app.user_items (user_id, item_id)
    select give_starters.user_id, i.id from app.shop_items i where i.is_starter and i.active;
    insert into app.user_selections (user_id, kind, item_id)
    select give_starters.user_id, i.kind, i.id from app.shop_items i where i.is_starter and i.active;
$$;
ALTER FUNCTION api.give_starters(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.hash_password(password text) RETURNS text
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$ select crypt(hash_password.password, gen_salt('bf', s.bcrypt_cost)) from app.auth_settings s $$;
ALTER FUNCTION api.hash_password(password text) OWNER TO focus_owner;
CREATE FUNCTION api.idempotent(endpoint text, token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $_$
declare
    v_key text := idempotent.params ->> 'idempotency_key';
    v_function regprocedure := to_regprocedure(idempotent.endpoint || '(text, jsonb, jsonb)');
    v_keep boolean := false;  -- true: this request owns the key and stores its answer
    v_token_digest bytea;
    v_user_id uuid;
    v_valid boolean := false;
    v_scope text;
    v_request jsonb;
    v_digest bytea;
    v_sealed boolean;
    v_retention interval;
    v_row app.idempotency_keys;
    v_reply api.reply;
begin
    if v_function is null or idempotent.endpoint !~ '^api\.[a-z_]+$' then
        raise exception 'api.idempotent: % is not an endpoint', idempotent.endpoint;
    end if;
    if v_key is not null and v_key !~ '^[\x20-\x7e]{1,255}$' then
        perform api.fail(400, 'invalid_field', 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
                         jsonb_build_object('field', 'Idempotency-Key'));
    end if;
    if v_key is not null and (select p.provolatile from pg_proc p where p.oid = v_function) = 'v' then
        if idempotent.token is not null then
            v_token_digest := sha256(convert_to(idempotent.token, 'UTF8'));
            select t.user_id, t.revoked_at is null and t.expires_at > now() into v_user_id, v_valid
            from app.auth_tokens t where t.digest = v_token_digest;
            v_scope := 'user:' || v_user_id;
            if v_user_id is null then  -- gone with DELETE /me: the keys it made itself only
                select k.scope into v_scope from app.idempotency_keys k
                where k.token_digest = v_token_digest and k.key = v_key;
            end if;
        elsif jsonb_typeof(idempotent.body -> 'email') = 'string' then
            v_scope := 'email:' || lower(btrim(idempotent.body ->> 'email'));
        end if;
    end if;
    -- With somebody to keep the key for (else the endpoint answers: 401, 400): the key first.
    if v_scope is not null and length(v_scope) <= 400 then
        v_request := jsonb_build_object('route', idempotent.endpoint,
                                        'params', idempotent.params - array['client_ip', 'user_agent', 'idempotency_key'],
                                        'body', idempotent.body);
        v_sealed := idempotent.body ?| api.secret_fields();
        v_digest := sha256(convert_to(jsonb_set(v_request, '{body}', idempotent.body - api.secret_fields())::text, 'UTF8'));
        select s.retention into v_retention from app.idempotency_settings s;
        -- Waits here for a racing request with this key to commit or roll back.
        insert into app.idempotency_keys as k (scope, key, route, request_digest, token_digest)
        values (v_scope, v_key, idempotent.endpoint, v_digest, v_token_digest)
        on conflict (scope, key) do update
            set route = excluded.route, request_digest = excluded.request_digest, token_digest = excluded.token_digest,
                reply = null, sealed_reply = null, created_at = now()
            where k.created_at < now() - v_retention
        returning true into v_keep;
        if v_keep is null then
            v_keep := false;
            select * into v_row from app.idempotency_keys k where k.scope = v_scope and k.key = v_key;
            -- A token that no longer authenticates replays only what it made itself; else the endpoint answers 401.
            if v_valid or idempotent.token is null or v_row.token_digest = v_token_digest then
                if v_row.route <> idempotent.endpoint or v_row.request_digest <> v_digest then
                    perform api.fail(422, 'idempotency_key_reused',
                                     'This Idempotency-Key was used for another request; use a new key for a new request.');
                end if;
                if v_row.sealed_reply is not null then
                    begin
                        return jsonb_populate_record(null::api.reply, pgp_sym_decrypt(v_row.sealed_reply, v_request::text)::jsonb);
                    exception when external_routine_invocation_exception then  -- another password or code
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
    into v_reply using idempotent.token, idempotent.params, idempotent.body;
    perform 'PRAGMA:enable:other_warnings';
    if v_keep and v_sealed then
        update app.idempotency_keys k set sealed_reply = pgp_sym_encrypt(to_jsonb(v_reply)::text, v_request::text)
        where k.scope = v_scope and k.key = v_key;
    elsif v_keep then
        update app.idempotency_keys k set reply = to_jsonb(v_reply) where k.scope = v_scope and k.key = v_key;
    end if;
    return v_reply;
end
$_$;
ALTER FUNCTION api.idempotent(endpoint text, token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.integer_field(body jsonb, field text, minimum integer, maximum integer, required boolean DEFAULT true) RETURNS integer
    LANGUAGE plpgsql
    AS $$
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
ALTER FUNCTION api.integer_field(body jsonb, field text, minimum integer, maximum integer, required boolean) OWNER TO focus_owner;
CREATE FUNCTION api.integer_param(params jsonb, name text, minimum integer, maximum integer, fallback integer) RETURNS integer
    LANGUAGE plpgsql
    AS $_$
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
$_$;
ALTER FUNCTION api.integer_param(params jsonb, name text, minimum integer, maximum integer, fallback integer) OWNER TO focus_owner;
CREATE FUNCTION api.is_uuid(value text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $_$ select is_uuid.value ~* '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$' $_$;
ALTER FUNCTION api.is_uuid(value text) OWNER TO focus_owner;
CREATE FUNCTION api.iso(value timestamp with time zone) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ select to_char(iso.value at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
ALTER FUNCTION api.iso(value timestamp with time zone) OWNER TO focus_owner;
CREATE FUNCTION api.issue_token(user_id uuid, params jsonb DEFAULT '{}'::jsonb) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_token text := translate(encode(gen_random_bytes(32), 'base64'), '+/=', '-_');
    v_expires_at timestamptz;
begin
    insert into app.auth_tokens (digest, user_id, expires_at, user_agent)
    select sha256(convert_to(v_token, 'UTF8')), issue_token.user_id, now() + s.token_ttl,
           nullif(left(btrim(regexp_replace(issue_token.params ->> 'user_agent', '[[:cntrl:]]', '', 'g')), 200), '')
    from app.auth_settings s
    returning expires_at into v_expires_at;
    return jsonb_build_object('token', v_token, 'expires_at', api.iso(v_expires_at));
end
$$;
ALTER FUNCTION api.issue_token(user_id uuid, params jsonb) OWNER TO focus_owner;
CREATE TABLE app.shop_items (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    description text NOT NULL,
    price integer NOT NULL,
    image text NOT NULL,
    sound text,
    sort_order integer DEFAULT 0 NOT NULL,
    is_starter boolean DEFAULT false NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT shop_items_check CHECK (((kind = 'sound'::text) = (sound IS NOT NULL))),
    CONSTRAINT shop_items_check1 CHECK (((NOT is_starter) OR ((price = 0) AND active))),
    CONSTRAINT shop_items_description_check CHECK (((length(description) >= 1) AND (length(description) <= 200))),
    CONSTRAINT shop_items_image_check CHECK ((image ~ '^[a-z0-9_./-]+$'::text)),
    CONSTRAINT shop_items_kind_check CHECK ((kind = ANY (ARRAY['pet'::text, 'sound'::text, 'furniture'::text]))),
    CONSTRAINT shop_items_name_check CHECK (((length(name) >= 1) AND (length(name) <= 60))),
    CONSTRAINT shop_items_price_check CHECK ((price >= 0)),
    CONSTRAINT shop_items_sound_check CHECK ((sound ~ '^[a-z0-9_./-]+$'::text))
);
ALTER TABLE app.shop_items OWNER TO focus_owner;
CREATE FUNCTION api.item_json(item app.shop_items) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select jsonb_build_object('id', item.id, 'kind', item.kind, 'name', item.name,
                              'description', item.description, 'price', item.price,
                              'image', item.image, 'image_url', api.asset_url(item.image), 'sort_order', item.sort_order)
           || case when item.sound is not null
                   then jsonb_build_object('sound', item.sound, 'sound_url', api.asset_url(item.sound)) else '{}' end
$$;
ALTER FUNCTION api.item_json(item app.shop_items) OWNER TO focus_owner;
CREATE FUNCTION api.json_field(body jsonb, field text, json_type text, required boolean, expected text) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
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
ALTER FUNCTION api.json_field(body jsonb, field text, json_type text, required boolean, expected text) OWNER TO focus_owner;
CREATE FUNCTION api.kind_param(params jsonb, required boolean) RETURNS text
    LANGUAGE sql
    AS $$
    select case when kind_param.params ->> 'kind' is null and not kind_param.required then null
                else api.choice(kind_param.params ->> 'kind', 'kind', array['pet', 'sound', 'furniture']) end
$$;
ALTER FUNCTION api.kind_param(params jsonb, required boolean) OWNER TO focus_owner;
CREATE FUNCTION api.known_ids(body jsonb, field text DEFAULT 'known_ids'::text) RETURNS uuid[]
    LANGUAGE plpgsql
    AS $$
declare
    v_ids jsonb := known_ids.body -> known_ids.field;
begin
    if v_ids is null or jsonb_typeof(v_ids) <> 'array' then
        perform api.fail_field(known_ids.field, 'must be an array of UUIDs.');
    end if;
    if exists (select from jsonb_array_elements(v_ids) as e(value)
               where jsonb_typeof(e.value) <> 'string'
                  or not api.is_uuid(e.value #>> '{}')) then
        perform api.fail_field(known_ids.field, 'must contain only UUID strings.');
    end if;
    return array(select distinct (e.value #>> '{}')::uuid from jsonb_array_elements(v_ids) as e(value));
end
$$;
ALTER FUNCTION api.known_ids(body jsonb, field text) OWNER TO focus_owner;
CREATE FUNCTION api.leaderboards_get(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(leaderboards_get.token);
    v_period text := api.choice(leaderboards_get.params ->> 'period', 'period', array['daily', 'weekly']);
    v_scope text := api.choice(coalesce(leaderboards_get.params ->> 'scope', 'friends'), 'scope', array['friends', 'global']);
    v_limit integer := api.integer_param(leaderboards_get.params, 'limit', 1, 100, 10);
    v_time_zone text := api.user_time_zone(v_user_id);
    v_start timestamptz := api.local_period_start(v_time_zone, now(), case v_period when 'daily' then 'day' else 'week' end);
    v_key date := (v_start at time zone v_time_zone)::date;
    v_mine integer := coalesce(api.rollup_minutes(v_user_id, v_period, v_key), 0);
    v_my_rank bigint;
    v_body jsonb;
begin
    if v_scope = 'global' then
        if v_period = 'daily' then
            v_my_rank := 1 + coalesce((select sum(c.users) from app.daily_minutes_counts c
                                       where c.day = v_key and c.minutes > v_mine), 0);
        else
            v_my_rank := 1 + coalesce((select sum(c.users) from app.weekly_minutes_counts c
                                       where c.week = v_key and c.minutes > v_mine), 0);
        end if;
    end if;
    with top as (
        select t.user_id, t.minutes from api.board_top(v_period, v_key, v_limit) t where v_scope = 'global'
    ),
    members as (
        (select v_user_id as id, v_mine as minutes where v_scope = 'friends'
         union
         select o.id, coalesce(api.rollup_minutes(o.id, v_period, v_key), 0)
         from app.friendships f cross join lateral (select api.other_user(f, v_user_id) as id) o
         where v_scope = 'friends' and (f.user_low = v_user_id or f.user_high = v_user_id) and f.status = 'accepted')
        union all
        select t.user_id, t.minutes from top t
        union all
        -- Fewer than `limit` users focused: every one of them, and the caller's zero.
        select v_user_id, 0 where v_scope = 'global' and v_mine = 0 and (select count(*) from top) < v_limit
    ),
    ranked as (
        select m.id, m.minutes, rank() over (order by m.minutes desc) as rank, u.display_name
        from members m join app.users u on u.id = m.id
        where u.deleted_at is null
    )
    select jsonb_build_object(
        'period_start', api.iso(v_start),
        'entries', coalesce((select jsonb_agg(jsonb_build_object('rank', r.rank, 'minutes', r.minutes, 'user',
                                                                 api.card_json(r.id, r.display_name, a.user_id is not null, a.updated_at))
                                              order by r.rank, r.display_name, r.id)
                             from (select * from ranked order by rank, display_name, id limit v_limit) r
                             left join app.avatars a on a.user_id = r.id), '[]'),
        'me', case when v_scope = 'global' then jsonb_build_object('rank', v_my_rank, 'minutes', v_mine)
                   else (select jsonb_build_object('rank', r.rank, 'minutes', r.minutes) from ranked r where r.id = v_user_id) end)
    into v_body;
    return api.ok(v_body);
end
$$;
ALTER FUNCTION api.leaderboards_get(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE TABLE app.focus_sessions (
    id uuid NOT NULL,
    user_id uuid NOT NULL,
    source text NOT NULL,
    planned_minutes integer,
    started_at timestamp with time zone NOT NULL,
    ended_at timestamp with time zone,
    occupies tstzrange NOT NULL,
    minutes integer,
    coins_earned integer DEFAULT 0 NOT NULL,
    rating text,
    rated_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    abandoned boolean DEFAULT false NOT NULL,
    CONSTRAINT focus_sessions_abandoned_earns_nothing CHECK (((NOT abandoned) OR ((source = 'live'::text) AND (ended_at IS NOT NULL) AND (minutes = 0) AND (coins_earned = 0)))),
    CONSTRAINT focus_sessions_check CHECK (((ended_at IS NULL) OR (ended_at > started_at))),
    CONSTRAINT focus_sessions_check1 CHECK (((ended_at IS NULL) = (minutes IS NULL))),
    CONSTRAINT focus_sessions_check2 CHECK (((ended_at IS NOT NULL) OR (source = 'live'::text))),
    CONSTRAINT focus_sessions_check3 CHECK (((lower(occupies) = started_at) AND ((ended_at IS NULL) OR (upper(occupies) = ended_at)))),
    CONSTRAINT focus_sessions_check4 CHECK ((((rating IS NULL) = (rated_at IS NULL)) AND ((rating IS NULL) OR (ended_at IS NOT NULL)))),
    CONSTRAINT focus_sessions_coins_earned_check CHECK ((coins_earned >= 0)),
    CONSTRAINT focus_sessions_minutes_check CHECK ((minutes >= 0)),
    CONSTRAINT focus_sessions_planned_minutes_check CHECK (((planned_minutes >= 1) AND (planned_minutes <= 1440))),
    CONSTRAINT focus_sessions_rating_check CHECK ((rating = ANY (ARRAY['good'::text, 'fine'::text, 'bad'::text]))),
    CONSTRAINT focus_sessions_source_check CHECK ((source = ANY (ARRAY['live'::text, 'offline'::text])))
);
ALTER TABLE app.focus_sessions OWNER TO focus_owner;
CREATE FUNCTION api.live_end(session app.focus_sessions) RETURNS timestamp with time zone
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select greatest(session.started_at + interval '1 microsecond',
                    least(now(), session.started_at + make_interval(mins => coalesce(session.planned_minutes, e.max_session_minutes)),
                          session.started_at + make_interval(mins => e.max_session_minutes)))
    from app.economy_settings e
$$;
ALTER FUNCTION api.live_end(session app.focus_sessions) OWNER TO focus_owner;
CREATE FUNCTION api.local_date(time_zone text, at timestamp with time zone) RETURNS date
    LANGUAGE sql STABLE
    AS $$ select (local_date.at at time zone local_date.time_zone)::date $$;
ALTER FUNCTION api.local_date(time_zone text, at timestamp with time zone) OWNER TO focus_owner;
CREATE FUNCTION api.local_period_start(time_zone text, at timestamp with time zone, period text DEFAULT 'day'::text, shift integer DEFAULT 0) RETURNS timestamp with time zone
    LANGUAGE sql STABLE
    AS $$
    select (date_trunc(local_period_start.period, local_period_start.at at time zone local_period_start.time_zone)
            + local_period_start.shift * case local_period_start.period when 'week' then interval '1 week'
                                                                          else interval '1 day' end)
           at time zone local_period_start.time_zone
$$;
ALTER FUNCTION api.local_period_start(time_zone text, at timestamp with time zone, period text, shift integer) OWNER TO focus_owner;
CREATE FUNCTION api.lock_account(user_id uuid) RETURNS app.users
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    perform from app.auth_tokens t where t.user_id = lock_account.user_id order by t.digest for update;
    return api.lock_user(lock_account.user_id);
end
$$;
ALTER FUNCTION api.lock_account(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.lock_pair(a uuid, b uuid) RETURNS app.friendships
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    perform api.lock_user(least(lock_pair.a, lock_pair.b));
    perform api.lock_user(greatest(lock_pair.a, lock_pair.b));
    return api.pair(lock_pair.a, lock_pair.b);
end
$$;
ALTER FUNCTION api.lock_pair(a uuid, b uuid) OWNER TO focus_owner;
CREATE FUNCTION api.lock_user(user_id uuid) RETURNS app.users
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
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
ALTER FUNCTION api.lock_user(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.me_avatar_delete(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    delete from app.avatars a where a.user_id = api.authenticate(me_avatar_delete.token);
    return api.ok(null);
end
$$;
ALTER FUNCTION api.me_avatar_delete(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_avatar_update(token text, params jsonb, body bytea) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_avatar_update.token);
    v_type text := case when substring(me_avatar_update.body from 1 for 8) = '\x89504e470d0a1a0a'::bytea then 'image/png'
                        when substring(me_avatar_update.body from 1 for 3) = '\xffd8ff'::bytea then 'image/jpeg' end;
begin
    if v_type is null or length(me_avatar_update.body) < 4 then
        perform api.fail(415, 'unsupported_image', 'Send a PNG or JPEG image.');
    end if;
    if length(me_avatar_update.body) > app.avatar_max_bytes() then
        perform api.fail(413, 'body_too_large', format('An avatar is at most %s KiB.', app.avatar_max_bytes() / 1024));
    end if;
    insert into app.avatars (user_id, content_type, data) values (v_user_id, v_type, me_avatar_update.body)
    on conflict (user_id) do update set content_type = excluded.content_type, data = excluded.data, updated_at = now();
    return api.ok(null);
end
$$;
ALTER FUNCTION api.me_avatar_update(token text, params jsonb, body bytea) OWNER TO focus_owner;
CREATE FUNCTION api.me_blocks_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_blocks_list.token);
begin
    return api.ok(jsonb_build_object('blocks', coalesce(
        (select jsonb_agg(jsonb_build_object('user', api.user_card(b.blocked), 'created_at', api.iso(b.created_at))
                          order by b.created_at desc, b.blocked)
         from app.blocks b where b.blocker = v_user_id), '[]')));
end
$$;
ALTER FUNCTION api.me_blocks_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_delete(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_delete.token);
    v_body jsonb := api.only_keys(me_delete.body, array['password']);
    v_password text := api.text_field(v_body, 'password');
    v_user app.users := api.lock_account(v_user_id);
    v_check api.reply := api.check_password(v_user, v_password, api.client_address(me_delete.params));
    v_pair app.friendships;
begin
    if v_check.code is not null then
        return v_check;
    end if;
    for v_pair in delete from app.friendships f where v_user_id in (f.user_low, f.user_high) returning * loop
        perform api.record_friendship_event(v_pair, v_user_id,
            case when v_pair.status = 'accepted' then 'removed'
                 when v_pair.requested_by = v_user_id then 'cancelled' else 'declined' end);
    end loop;
    delete from app.auth_tokens t where t.user_id = v_user_id;
    delete from app.password_resets r where r.user_id = v_user_id;
    delete from app.outgoing_mail m where m.recipient = v_user.email;
    perform api.failed_attempts(v_user.email, 'clear');
    delete from app.login_addresses a where a.user_id = v_user_id;
    delete from app.avatars a where a.user_id = v_user_id;
    delete from app.blocks b where v_user_id in (b.blocker, b.blocked);
    delete from app.user_reports r where r.reported = v_user_id;
    delete from app.friend_request_attempts a where a.user_id = v_user_id;
    update app.users u
    set email = null, password_hash = null, display_name = 'Deleted user', time_zone = 'UTC',
        show_tip_on_timer = true, deleted_at = now(), updated_at = now()
    where u.id = v_user_id;
    return api.ok(null);
end
$$;
ALTER FUNCTION api.me_delete(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_email_update(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_email_update.token);
    v_body jsonb := api.only_keys(me_email_update.body, array['password', 'email']);
    v_password text := api.text_field(v_body, 'password');
    v_email text := api.email_field(v_body);
    v_user app.users := api.lock_account(v_user_id);
    v_check api.reply := api.check_password(v_user, v_password, api.client_address(me_email_update.params));
begin
    if v_check.code is not null then
        return v_check;
    end if;
    begin
        update app.users u set email = v_email, updated_at = now() where u.id = v_user_id;
    exception when unique_violation then
        perform api.fail(409, 'email_taken', 'An account with that email already exists.');
    end;
    update app.password_resets r set used_at = now() where r.user_id = v_user_id and r.used_at is null;
    return api.ok(api.profile(v_user_id));
end
$$;
ALTER FUNCTION api.me_email_update(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_export_get(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_export_get.token);
    v_digest bytea := sha256(convert_to(me_export_get.token, 'UTF8'));
begin
    return api.ok(jsonb_build_object(
        'exported_at', api.iso(now()),
        'profile', api.profile(v_user_id),
        'items', coalesce((select jsonb_agg(jsonb_build_object('item', api.item_json(i), 'acquired_at', api.iso(ui.acquired_at))
                                            order by ui.acquired_at, i.id)
                           from app.user_items ui join app.shop_items i on i.id = ui.item_id
                           where ui.user_id = v_user_id), '[]'),
        'sessions', coalesce((select jsonb_agg(api.session_json(s) || jsonb_build_object(
                                                   'source', s.source, 'rated_at', api.iso(s.rated_at))
                                               order by s.started_at)
                              from app.focus_sessions s where s.user_id = v_user_id), '[]'),
        'tips_shown', coalesce((select jsonb_agg(jsonb_build_object('tip', api.tip_json(t), 'session_id', v.session_id,
                                                                    'shown_at', api.iso(v.shown_at)) order by v.id)
                                from app.tip_views v join app.mindfulness_tips t on t.id = v.tip_id
                                where v.user_id = v_user_id), '[]'),
        'friendships', coalesce((select jsonb_agg(jsonb_build_object(
                                     'id', f.id, 'status', f.status,
                                     'user', api.user_card(case when f.user_low = v_user_id then f.user_high else f.user_low end),
                                     'requested_by_me', f.requested_by = v_user_id,
                                     'created_at', api.iso(f.created_at), 'accepted_at', api.iso(f.accepted_at))
                                     order by f.created_at, f.id)
                                 from app.friendships f where v_user_id in (f.user_low, f.user_high)), '[]'),
        'ledger', coalesce((select jsonb_agg(jsonb_build_object('entry', c.entry, 'amount', c.amount, 'reason', c.reason,
                                                                'item_id', c.item_id, 'session_id', c.session_id,
                                                                'created_at', api.iso(c.created_at)) order by c.id)
                            from app.coin_ledger c where c.user_id = v_user_id), '[]'),
        'tokens', coalesce((select jsonb_agg(api.token_json(t, v_digest) || jsonb_build_object('revoked_at', api.iso(t.revoked_at))
                                             order by t.created_at, t.id)
                            from app.auth_tokens t where t.user_id = v_user_id), '[]'),
        'blocks', coalesce((select jsonb_agg(jsonb_build_object('user_id', b.blocked, 'created_at', api.iso(b.created_at))
                                             order by b.created_at, b.blocked)
                            from app.blocks b where b.blocker = v_user_id), '[]'),
        'reports_made', coalesce((select jsonb_agg(api.report_json(r) order by r.created_at, r.id)
                                  from app.user_reports r where r.reporter = v_user_id), '[]'),
        'avatar', (select jsonb_build_object('content_type', a.content_type, 'data_base64', translate(encode(a.data, 'base64'), E'\n', ''),
                                             'updated_at', api.iso(a.updated_at))
                   from app.avatars a where a.user_id = v_user_id),
        'password_resets', coalesce((select jsonb_agg(jsonb_build_object('created_at', api.iso(r.created_at),
                                                                         'expires_at', api.iso(r.expires_at),
                                                                         'used_at', api.iso(r.used_at)) order by r.created_at)
                                     from app.password_resets r where r.user_id = v_user_id), '[]')));
end
$$;
ALTER FUNCTION api.me_export_get(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_get(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    return api.ok(api.profile(api.authenticate(me_get.token)));
end
$$;
ALTER FUNCTION api.me_get(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_items_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_items_list.token);
    v_kind text := api.kind_param(me_items_list.params, required => false);
begin
    return api.ok(jsonb_build_object('items', coalesce(
        (select jsonb_agg(jsonb_build_object('item', api.item_json(i), 'acquired_at', api.iso(ui.acquired_at))
                          order by i.kind, i.sort_order)
         from app.user_items ui join app.shop_items i on i.id = ui.item_id
         where ui.user_id = v_user_id and (v_kind is null or i.kind = v_kind)), '[]')));
end
$$;
ALTER FUNCTION api.me_items_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_password_update(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_password_update.token);
    v_body jsonb := api.only_keys(me_password_update.body, array['current_password', 'new_password']);
    v_current text := api.text_field(v_body, 'current_password');
    v_new text := api.password_field(v_body, 'new_password');
    v_user app.users := api.lock_account(v_user_id);
    v_check api.reply := api.check_password(v_user, v_current, api.client_address(me_password_update.params));
begin
    if v_check.code is not null then
        return v_check;
    end if;
    update app.users u set password_hash = api.hash_password(v_new), updated_at = now() where u.id = v_user_id;
    update app.auth_tokens t set revoked_at = now()
    where t.user_id = v_user_id and t.revoked_at is null
      and t.digest <> sha256(convert_to(me_password_update.token, 'UTF8'));
    update app.password_resets r set used_at = now() where r.user_id = v_user_id and r.used_at is null;
    return api.ok(null);
end
$$;
ALTER FUNCTION api.me_password_update(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_selected_update(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_selected_update.token);
    v_body jsonb := api.only_keys(me_selected_update.body, array['item_id']);
    v_kind text := api.kind_param(me_selected_update.params, required => true);
    v_item_id uuid := api.uuid_field(v_body, 'item_id');
    v_item_kind text;
begin
    select i.kind into v_item_kind from app.shop_items i where i.id = v_item_id;
    if v_item_kind is null then
        perform api.fail(404, 'item_not_found', 'There is no such item.');
    end if;
    if v_item_kind <> v_kind then
        perform api.fail(400, 'kind_mismatch', format('That item is a %s, not a %s.', v_item_kind, v_kind));
    end if;
    if not exists (select from app.user_items ui where ui.user_id = v_user_id and ui.item_id = v_item_id) then
        perform api.fail(409, 'not_owned', 'Buy the item before selecting it.');
    end if;
    insert into app.user_selections (user_id, kind, item_id) values (v_user_id, v_kind, v_item_id)
    on conflict (user_id, kind) do update set item_id = excluded.item_id;
    return api.ok(api.profile(v_user_id));
end
$$;
ALTER FUNCTION api.me_selected_update(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_stats_get(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_stats_get.token);
    v_time_zone text := api.user_time_zone(v_user_id);
    v_today date := api.local_date(v_time_zone, now());
begin
    return (
        with days as (
            select api.local_date(v_time_zone, s.ended_at) as day, sum(s.minutes) as minutes, sum(s.coins_earned) as coins
            from app.focus_sessions s
            where s.user_id = v_user_id and s.ended_at is not null
            group by 1
        ),
        runs as (
            select max(day) as last_day, count(*) as length
            from (select d.day, d.day - (row_number() over (order by d.day))::integer as run
                  from days d where d.minutes > 0) numbered
            group by run
        )
        select api.ok(jsonb_build_object(
            'today_minutes', coalesce((select sum(minutes) from days where day = v_today), 0),
            'week_minutes', coalesce((select sum(minutes) from days where day >= date_trunc('week', v_today)::date), 0),
            'total_minutes', coalesce((select sum(minutes) from days), 0),
            'total_coins_earned', coalesce((select sum(coins) from days), 0),
            'current_streak_days', coalesce((select length from runs where last_day >= v_today - 1), 0),
            'longest_streak_days', coalesce((select max(length) from runs), 0))));
end
$$;
ALTER FUNCTION api.me_stats_get(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_tokens_delete(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_tokens_delete.token);
    v_id uuid := api.uuid_field(me_tokens_delete.params, 'id');
begin
    update app.auth_tokens t set revoked_at = now()
    where t.id = v_id and t.user_id = v_user_id and t.revoked_at is null and t.expires_at > now();
    if not found then
        perform api.fail(404, 'token_not_found', 'You have no such working token.');
    end if;
    return api.ok(null);
end
$$;
ALTER FUNCTION api.me_tokens_delete(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_tokens_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_tokens_list.token);
    v_digest bytea := sha256(convert_to(me_tokens_list.token, 'UTF8'));
begin
    return api.ok(jsonb_build_object('tokens', coalesce(
        (select jsonb_agg(api.token_json(t, v_digest) order by t.last_used_at desc, t.created_at desc, t.id)
         from app.auth_tokens t
         where t.user_id = v_user_id and t.revoked_at is null and t.expires_at > now()), '[]')));
end
$$;
ALTER FUNCTION api.me_tokens_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.me_update(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(me_update.token);
    v_body jsonb := api.only_keys(me_update.body, array['display_name', 'settings']);
    v_display_name text := api.display_name_field(v_body, required => false);
    v_settings jsonb := v_body -> 'settings';
    v_show_tip boolean;
    v_time_zone text;
begin
    if v_settings is not null and jsonb_typeof(v_settings) <> 'null' then
        if jsonb_typeof(v_settings) <> 'object' then
            perform api.fail_field('settings', 'must be an object.');
        end if;
        perform api.only_keys(v_settings, array['show_tip_on_timer', 'time_zone']);
        v_show_tip := api.boolean_field(v_settings, 'show_tip_on_timer', required => false);
        v_time_zone := api.text_field(v_settings, 'time_zone', required => false);
        if v_time_zone is not null and not exists (select from pg_timezone_names z where z.name = v_time_zone) then
            perform api.fail_field('time_zone', 'must be an IANA time zone name, like Europe/Paris.');
        end if;
    end if;
    update app.users u
    set display_name = coalesce(v_display_name, u.display_name),
        show_tip_on_timer = coalesce(v_show_tip, u.show_tip_on_timer),
        time_zone = coalesce(v_time_zone, u.time_zone),
        updated_at = now()
    where u.id = v_user_id;
    return api.ok(api.profile(v_user_id));
end
$$;
ALTER FUNCTION api.me_update(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.mindfulness_tips_sync(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_original text := (select k from jsonb_object_keys(mindfulness_tips_sync.body) as k
                        where lower(k) = 'itemids' order by k limit 1);
    v_body jsonb;
    v_known uuid[];
begin
    if v_original is not null then
        v_body := api.only_keys(mindfulness_tips_sync.body, array[v_original]);
        v_known := api.known_ids(v_body, v_original);
        return api.ok(jsonb_build_object('missingItems', coalesce(
            (select jsonb_agg(jsonb_build_object('id', t.id, 'title', t.title, 'content', t.content,
                                                 'sessionRatingLevel', initcap(t.rating_level))
                              order by t.rating_level, t.title)
             from app.mindfulness_tips t where t.active and t.id <> all (v_known)), '[]')));
    end if;
    v_body := api.only_keys(mindfulness_tips_sync.body, array['known_ids']);
    v_known := api.known_ids(v_body);
    return api.ok(api.sync_difference(v_known, (select jsonb_agg(api.tip_json(t) order by t.rating_level, t.title)
                                                from app.mindfulness_tips t where t.active)));
end
$$;
ALTER FUNCTION api.mindfulness_tips_sync(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.newest_event_id() RETURNS bigint
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select greatest(coalesce((select max(e.id) from app.events e), 0),
                    (select s.pruned_through from app.event_settings s))
$$;
ALTER FUNCTION api.newest_event_id() OWNER TO focus_owner;
CREATE FUNCTION api.ok(body jsonb, status integer DEFAULT NULL::integer, etag text DEFAULT NULL::text) RETURNS api.reply
    LANGUAGE sql IMMUTABLE
    AS $$ select row(ok.status, ok.body, ok.etag, null, null, null)::api.reply $$;
ALTER FUNCTION api.ok(body jsonb, status integer, etag text) OWNER TO focus_owner;
CREATE FUNCTION api.only_keys(body jsonb, allowed text[]) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
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
ALTER FUNCTION api.only_keys(body jsonb, allowed text[]) OWNER TO focus_owner;
CREATE FUNCTION api.other_user(pair app.friendships, me uuid) RETURNS uuid
    LANGUAGE sql IMMUTABLE
    AS $$ select case when pair.user_low = other_user.me then pair.user_high else pair.user_low end $$;
ALTER FUNCTION api.other_user(pair app.friendships, me uuid) OWNER TO focus_owner;
CREATE FUNCTION api.other_user_param(params jsonb, user_id uuid, self_code text) RETURNS uuid
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_other uuid := api.uuid_field(other_user_param.params, 'id');
begin
    if v_other = other_user_param.user_id then
        perform api.fail(422, other_user_param.self_code, 'That is you.');
    end if;
    if not exists (select from app.users u where u.id = v_other and u.deleted_at is null) then
        perform api.fail(404, 'user_not_found', 'There is no such user.');
    end if;
    return v_other;
end
$$;
ALTER FUNCTION api.other_user_param(params jsonb, user_id uuid, self_code text) OWNER TO focus_owner;
CREATE FUNCTION api.own_session(user_id uuid, session_id uuid) RETURNS app.focus_sessions
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_session app.focus_sessions;
begin
    perform api.lock_user(own_session.user_id);
    select * into v_session from app.focus_sessions s
    where s.id = own_session.session_id and s.user_id = own_session.user_id;
    if v_session.id is null then
        perform api.fail(404, 'session_not_found', 'There is no such session.');
    end if;
    return v_session;
end
$$;
ALTER FUNCTION api.own_session(user_id uuid, session_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.pair(a uuid, b uuid) RETURNS app.friendships
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select f.* from app.friendships f
    where f.user_low = least(pair.a, pair.b) and f.user_high = greatest(pair.a, pair.b)
$$;
ALTER FUNCTION api.pair(a uuid, b uuid) OWNER TO focus_owner;
CREATE FUNCTION api.parse_body(body text) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
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
ALTER FUNCTION api.parse_body(body text) OWNER TO focus_owner;
CREATE FUNCTION api.parse_image(body text) RETURNS bytea
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$ select decode(parse_image.body, 'hex') $$;
ALTER FUNCTION api.parse_image(body text) OWNER TO focus_owner;
CREATE FUNCTION api.password_field(body jsonb, field text) RETURNS text
    LANGUAGE plpgsql
    AS $$
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
ALTER FUNCTION api.password_field(body jsonb, field text) OWNER TO focus_owner;
CREATE FUNCTION api.pay_session(session_id uuid) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_session app.focus_sessions;
    v_settings app.economy_settings;
    v_time_zone text;
    v_coins integer;
    v_earned_that_day integer;
begin
    select * into v_session from app.focus_sessions s where s.id = pay_session.session_id;
    select * into v_settings from app.economy_settings;
    v_coins := case when v_session.minutes >= v_settings.min_minutes_to_earn
                    then floor(v_session.minutes * v_settings.coins_per_minute)::integer else 0 end;
    if v_session.source = 'offline' then
        v_time_zone := api.user_time_zone(v_session.user_id);
        select coalesce(sum(s.coins_earned), 0)::integer into v_earned_that_day
        from app.focus_sessions s
        where s.user_id = v_session.user_id and s.source = 'offline'
          and s.ended_at >= api.local_period_start(v_time_zone, v_session.ended_at)
          and s.ended_at < api.local_period_start(v_time_zone, v_session.ended_at, shift => 1);
        v_coins := greatest(0, least(v_coins, v_settings.offline_daily_coin_cap - v_earned_that_day));
    end if;
    if v_coins > 0 then
        update app.focus_sessions s set coins_earned = v_coins where s.id = v_session.id;
        insert into app.coin_ledger (user_id, entry, amount, reason, session_id)
        values (v_session.user_id, 'earn', v_coins, 'focus session', v_session.id);
    end if;
    return v_coins;
end
$$;
ALTER FUNCTION api.pay_session(session_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.pending_request(request_id uuid, user_id uuid, side text) RETURNS app.friendships
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_row app.friendships;
begin
    select * into v_row from app.friendships f where f.id = pending_request.request_id;
    if v_row.id is not null and pending_request.user_id in (v_row.user_low, v_row.user_high) then
        v_row := api.lock_pair(v_row.user_low, v_row.user_high);  -- re-read under the pair's lock
    end if;
    if v_row.id is distinct from pending_request.request_id or v_row.status <> 'pending'
       or (pending_request.side = 'receiver') <> (v_row.requested_by <> pending_request.user_id)
       or pending_request.user_id not in (v_row.user_low, v_row.user_high) then
        perform api.fail(404, 'friend_request_not_found', 'There is no such pending request for you.');
    end if;
    return v_row;
end
$$;
ALTER FUNCTION api.pending_request(request_id uuid, user_id uuid, side text) OWNER TO focus_owner;
CREATE FUNCTION api.problem(status integer, code text, message text, extra jsonb DEFAULT NULL::jsonb, retry_after integer DEFAULT NULL::integer) RETURNS api.reply
    LANGUAGE sql IMMUTABLE
    AS $$ select row(problem.status, problem.extra, null, problem.retry_after, problem.code, problem.message)::api.reply $$;
ALTER FUNCTION api.problem(status integer, code text, message text, extra jsonb, retry_after integer) OWNER TO focus_owner;
CREATE FUNCTION api.problem_json(status integer, code text, message text, extra text) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $_$
    select jsonb_build_object('type', 'urn:focus-island:problem:' || problem_json.code,
                              'title', case problem_json.status
                                  when 400 then 'Bad Request' when 401 then 'Unauthorized' when 403 then 'Forbidden'
                                  when 404 then 'Not Found' when 409 then 'Conflict' when 413 then 'Content Too Large'
                                  when 422 then 'Unprocessable Content' when 429 then 'Too Many Requests'
                                  else 'HTTP ' || problem_json.status end,
                              'status', problem_json.status, 'detail', problem_json.message, 'code', problem_json.code)
           || case when problem_json.extra ~ '^\{.*\}$' then problem_json.extra::jsonb else '{}' end
$_$;
ALTER FUNCTION api.problem_json(status integer, code text, message text, extra text) OWNER TO focus_owner;
CREATE FUNCTION api.profile(user_id uuid) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select jsonb_build_object(
        'id', u.id,
        'email', u.email,
        'display_name', u.display_name,
        'balance', u.balance,
        'selected', api.selected_json(u.id),
        'settings', jsonb_build_object('show_tip_on_timer', u.show_tip_on_timer, 'time_zone', u.time_zone),
        'has_avatar', a.user_id is not null,
        'avatar_version', api.avatar_version(a.updated_at),
        'created_at', api.iso(u.created_at))
    from app.users u left join app.avatars a on a.user_id = u.id
    where u.id = profile.user_id
$$;
ALTER FUNCTION api.profile(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.ready() RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select jsonb_build_object('status', 'ready',
                              'schema_version', coalesce(max(m.version), 0))
    from app.schema_migrations m
$$;
ALTER FUNCTION api.ready() OWNER TO focus_owner;
CREATE FUNCTION api.record_friendship_event(pair app.friendships, actor uuid, action text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    insert into app.friendship_events (request_id, user_low, user_high, actor, action)
    values (pair.id, pair.user_low, pair.user_high, record_friendship_event.actor, record_friendship_event.action)
$$;
ALTER FUNCTION api.record_friendship_event(pair app.friendships, actor uuid, action text) OWNER TO focus_owner;
CREATE TABLE app.user_reports (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    reporter uuid NOT NULL,
    reported uuid NOT NULL,
    reason text NOT NULL,
    details text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT user_reports_check CHECK ((reporter <> reported)),
    CONSTRAINT user_reports_details_check CHECK (((length(details) >= 1) AND (length(details) <= 1000))),
    CONSTRAINT user_reports_reason_check CHECK ((reason = ANY (ARRAY['spam'::text, 'harassment'::text, 'inappropriate_name'::text, 'inappropriate_avatar'::text, 'other'::text])))
);
ALTER TABLE app.user_reports OWNER TO focus_owner;
CREATE FUNCTION api.report_json(report app.user_reports) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
    select jsonb_build_object('id', report.id, 'user_id', report.reported, 'reason', report.reason,
                              'details', report.details, 'created_at', api.iso(report.created_at))
$$;
ALTER FUNCTION api.report_json(report app.user_reports) OWNER TO focus_owner;
CREATE FUNCTION api.rollup_minutes(user_id uuid, period text, key date) RETURNS integer
    LANGUAGE sql STABLE
    AS $$
    select case rollup_minutes.period
               when 'daily' then (select d.minutes from app.daily_minutes d
                                  where d.user_id = rollup_minutes.user_id and d.day = rollup_minutes.key)
               else (select w.minutes from app.weekly_minutes w
                     where w.user_id = rollup_minutes.user_id and w.week = rollup_minutes.key)
           end
$$;
ALTER FUNCTION api.rollup_minutes(user_id uuid, period text, key date) OWNER TO focus_owner;
CREATE FUNCTION api.secret_fields() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    AS $$ select array['password', 'current_password', 'new_password', 'code'] $$;
ALTER FUNCTION api.secret_fields() OWNER TO focus_owner;
CREATE FUNCTION api.selected_json(user_id uuid) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$ select s.selected from api.selections_of(selected_json.user_id) s $$;
ALTER FUNCTION api.selected_json(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.selections_of(user_id uuid) RETURNS TABLE(selected jsonb)
    LANGUAGE sql STABLE
    AS $$
    select jsonb_build_object('pet', null, 'sound', null, 'furniture', null)
           || coalesce(jsonb_object_agg(s.kind, api.item_json(i)), '{}')
    from app.user_selections s join app.shop_items i on i.id = s.item_id
    where s.user_id = selections_of.user_id
$$;
ALTER FUNCTION api.selections_of(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.session_json(session app.focus_sessions) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
    select jsonb_build_object('id', session.id, 'started_at', api.iso(session.started_at),
                              'ended_at', api.iso(session.ended_at), 'planned_minutes', session.planned_minutes,
                              'minutes', session.minutes,
                              'coins_earned', session.coins_earned, 'rating', session.rating,
                              'abandoned', session.abandoned)
$$;
ALTER FUNCTION api.session_json(session app.focus_sessions) OWNER TO focus_owner;
CREATE FUNCTION api.session_reply(session_id uuid, status integer DEFAULT NULL::integer) RETURNS api.reply
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select api.ok(jsonb_build_object('session', api.session_json(s), 'balance', u.balance), status => session_reply.status)
    from app.focus_sessions s join app.users u on u.id = s.user_id
    where s.id = session_reply.session_id
$$;
ALTER FUNCTION api.session_reply(session_id uuid, status integer) OWNER TO focus_owner;
CREATE FUNCTION api.shop_items_list(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select api.ok(jsonb_build_object(
               'version', v.version,
               'pets', coalesce(jsonb_agg(api.item_json(i) order by i.sort_order, i.name) filter (where i.kind = 'pet'), '[]'),
               'sounds', coalesce(jsonb_agg(api.item_json(i) order by i.sort_order, i.name) filter (where i.kind = 'sound'), '[]'),
               'furniture', coalesce(jsonb_agg(api.item_json(i) order by i.sort_order, i.name) filter (where i.kind = 'furniture'), '[]')),
           etag => 'catalog-' || v.version)
    from app.catalog_version v
    left join app.shop_items i on i.active
    group by v.version
$$;
ALTER FUNCTION api.shop_items_list(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.shop_items_sync(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_body jsonb := api.only_keys(shop_items_sync.body, array['known_ids']);
    v_known uuid[] := api.known_ids(v_body);
begin
    return api.ok(api.sync_difference(v_known, (select jsonb_agg(api.item_json(i) order by i.kind, i.sort_order)
                                                from app.shop_items i where i.active)));
end
$$;
ALTER FUNCTION api.shop_items_sync(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.shop_purchases_create(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(shop_purchases_create.token);
    v_body jsonb := api.only_keys(shop_purchases_create.body, array['item_id']);
    v_item_id uuid := api.uuid_field(v_body, 'item_id');
    v_balance integer;
    v_item app.shop_items;
    v_acquired_at timestamptz;
begin
    -- Lock the buyer: one purchase per user at a time, so balance and ownership checks hold.
    v_balance := (api.lock_user(v_user_id)).balance;
    select * into v_item from app.shop_items i where i.id = v_item_id and i.active;
    if v_item.id is null then
        perform api.fail(404, 'item_not_found', 'There is no such item in the shop.');
    end if;
    select ui.acquired_at into v_acquired_at
    from app.user_items ui where ui.user_id = v_user_id and ui.item_id = v_item_id;
    if v_acquired_at is not null then
        return api.ok(jsonb_build_object('item', api.item_json(v_item), 'balance', v_balance,
                                         'acquired_at', api.iso(v_acquired_at), 'already_owned', true),
                      status => 200);
    end if;
    if v_balance < v_item.price then
        perform api.fail(409, 'insufficient_funds', 'You do not have enough coins for this item.',
                         jsonb_build_object('balance', v_balance, 'price', v_item.price));
    end if;
    insert into app.user_items (user_id, item_id) values (v_user_id, v_item_id)
    returning acquired_at into v_acquired_at;
    if v_item.price > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, item_id)
        values (v_user_id, 'spend', -v_item.price, 'purchase', v_item_id);
    end if;
    return api.ok(jsonb_build_object('item', api.item_json(v_item), 'balance', v_balance - v_item.price,
                                     'acquired_at', api.iso(v_acquired_at), 'already_owned', false));
end
$$;
ALTER FUNCTION api.shop_purchases_create(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.sync_difference(known uuid[], active jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
    -- Anti-joins both ways (hashed), not `<> all (array)` per entry: 5,000 known ids took 140 ms.
    with entries as materialized (select a.entry, a.n, (a.entry ->> 'id')::uuid as id
                                  from jsonb_array_elements(sync_difference.active) with ordinality as a(entry, n))
    select jsonb_build_object(
        'missing', coalesce((select jsonb_agg(e.entry order by e.n) from entries e
                             where not exists (select from unnest(sync_difference.known) as k(id) where k.id = e.id)), '[]'),
        'removed', coalesce((select jsonb_agg(k.id order by k.id) from unnest(sync_difference.known) as k(id)
                             where not exists (select from entries e where e.id = k.id)), '[]'))
$$;
ALTER FUNCTION api.sync_difference(known uuid[], active jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.text_field(body jsonb, field text, required boolean DEFAULT true, max_length integer DEFAULT 1000) RETURNS text
    LANGUAGE plpgsql
    AS $$
declare
    v_text text := api.json_field(text_field.body, text_field.field, 'string', text_field.required, 'a string') #>> '{}';
begin
    if length(v_text) > text_field.max_length then
        perform api.fail_field(text_field.field, format('must be at most %s characters.', text_field.max_length));
    end if;
    return v_text;
end
$$;
ALTER FUNCTION api.text_field(body jsonb, field text, required boolean, max_length integer) OWNER TO focus_owner;
CREATE FUNCTION api.time_field(body jsonb, field text, required boolean DEFAULT true) RETURNS timestamp with time zone
    LANGUAGE plpgsql STABLE
    AS $_$
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
$_$;
ALTER FUNCTION api.time_field(body jsonb, field text, required boolean) OWNER TO focus_owner;
CREATE TABLE app.mindfulness_tips (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    rating_level text NOT NULL,
    title text NOT NULL,
    content text NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT mindfulness_tips_content_check CHECK (((length(content) >= 1) AND (length(content) <= 1000))),
    CONSTRAINT mindfulness_tips_rating_level_check CHECK ((rating_level = ANY (ARRAY['good'::text, 'fine'::text, 'bad'::text]))),
    CONSTRAINT mindfulness_tips_title_check CHECK (((length(title) >= 1) AND (length(title) <= 80)))
);
ALTER TABLE app.mindfulness_tips OWNER TO focus_owner;
CREATE FUNCTION api.tip_json(tip app.mindfulness_tips) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
    select jsonb_build_object('id', tip.id, 'title', tip.title, 'content', tip.content,
                              'rating_level', tip.rating_level)
$$;
ALTER FUNCTION api.tip_json(tip app.mindfulness_tips) OWNER TO focus_owner;
CREATE FUNCTION api.today_minutes(user_id uuid) RETURNS integer
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select coalesce((select d.minutes from app.users u
                     join app.daily_minutes d on d.user_id = u.id and d.day = api.local_date(u.time_zone, now())
                     where u.id = today_minutes.user_id), 0)
$$;
ALTER FUNCTION api.today_minutes(user_id uuid) OWNER TO focus_owner;
CREATE TABLE app.auth_tokens (
    digest bytea NOT NULL,
    user_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    last_used_at timestamp with time zone DEFAULT now() NOT NULL,
    user_agent text,
    CONSTRAINT auth_tokens_check CHECK ((expires_at > created_at)),
    CONSTRAINT auth_tokens_check1 CHECK (((revoked_at IS NULL) OR (revoked_at >= created_at))),
    CONSTRAINT auth_tokens_digest_check CHECK ((length(digest) = 32)),
    CONSTRAINT auth_tokens_user_agent_check CHECK ((length(user_agent) <= 200))
);
ALTER TABLE app.auth_tokens OWNER TO focus_owner;
CREATE FUNCTION api.token_json(token app.auth_tokens, current_digest bytea) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
    select jsonb_build_object('id', token.id, 'label', token.user_agent, 'created_at', api.iso(token.created_at),
                              'last_used_at', api.iso(token.last_used_at), 'expires_at', api.iso(token.expires_at),
                              'current', token.digest = token_json.current_digest)
$$;
ALTER FUNCTION api.token_json(token app.auth_tokens, current_digest bytea) OWNER TO focus_owner;
CREATE FUNCTION api.touch_token(token_id uuid) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    update app.auth_tokens t
    set last_used_at = now(), expires_at = greatest(t.expires_at, now() + s.token_ttl)
    from app.auth_settings s
    where t.id = touch_token.token_id and t.last_used_at < now() - s.token_touch_interval
$$;
ALTER FUNCTION api.touch_token(token_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.user_card(user_id uuid) RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select api.card_json(u.id, u.display_name, a.user_id is not null, a.updated_at)
    from app.users u left join app.avatars a on a.user_id = u.id
    where u.id = user_card.user_id
$$;
ALTER FUNCTION api.user_card(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.user_time_zone(user_id uuid) RETURNS text
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$ select coalesce((select u.time_zone from app.users u where u.id = user_time_zone.user_id), 'UTC') $$;
ALTER FUNCTION api.user_time_zone(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION api.users_avatar_get(token text, params jsonb, body jsonb) RETURNS api.file_reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(users_avatar_get.token);
    v_other uuid := api.uuid_field(users_avatar_get.params, 'id');
    v_avatar app.avatars;
begin
    select a.* into v_avatar from app.avatars a
    where a.user_id = v_other
      and (v_other = v_user_id or (api.pair(v_user_id, v_other)).status = 'accepted');
    if v_avatar.user_id is null then
        perform api.fail(404, 'avatar_not_found', 'There is no avatar for you to see there.');
    end if;
    return row(null, v_avatar.content_type, v_avatar.data, md5(v_avatar.data), null, null)::api.file_reply;
end
$$;
ALTER FUNCTION api.users_avatar_get(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.users_block_create(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(users_block_create.token);
    v_other uuid := api.other_user_param(users_block_create.params, v_user_id, 'cannot_block_self');
    v_pair app.friendships := api.lock_pair(v_user_id, v_other);
begin
    if v_pair.id is not null then
        delete from app.friendships f where f.id = v_pair.id;
        perform api.record_friendship_event(v_pair, v_user_id,
            case when v_pair.status = 'accepted' then 'removed'
                 when v_pair.requested_by = v_user_id then 'cancelled' else 'declined' end);
    end if;
    insert into app.blocks (blocker, blocked) values (v_user_id, v_other) on conflict do nothing;
    return api.ok(null);
end
$$;
ALTER FUNCTION api.users_block_create(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.users_block_delete(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(users_block_delete.token);
    v_other uuid := api.uuid_field(users_block_delete.params, 'id');
begin
    delete from app.blocks b where b.blocker = v_user_id and b.blocked = v_other;
    if not found then
        perform api.fail(404, 'block_not_found', 'You have not blocked that user.');
    end if;
    return api.ok(null);
end
$$;
ALTER FUNCTION api.users_block_delete(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.users_get(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(users_get.token);
    v_other uuid := api.uuid_field(users_get.params, 'id');
    v_pair app.friendships := api.pair(v_user_id, v_other);
begin
    if v_pair.status is distinct from 'accepted' then
        perform api.fail(404, 'user_not_found', 'There is no such friend.');
    end if;
    return api.ok(api.friend_json(v_other, v_pair.accepted_at));
end
$$;
ALTER FUNCTION api.users_get(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.users_report_create(token text, params jsonb, body jsonb) RETURNS api.reply
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_user_id uuid := api.authenticate(users_report_create.token);
    v_body jsonb := api.only_keys(users_report_create.body, array['reason', 'details']);
    v_reason text := api.choice(api.text_field(v_body, 'reason'), 'reason',
                                array['spam', 'harassment', 'inappropriate_name', 'inappropriate_avatar', 'other']);
    v_details text := btrim(api.text_field(v_body, 'details', required => false));
    v_other uuid := api.other_user_param(users_report_create.params, v_user_id, 'cannot_report_self');
    v_report app.user_reports;
begin
    if length(v_details) not between 1 and 1000 then
        perform api.fail_field('details', 'must be 1 to 1000 characters.');
    end if;
    insert into app.user_reports (reporter, reported, reason, details)
    values (v_user_id, v_other, v_reason, v_details)
    returning * into v_report;
    return api.ok(jsonb_build_object('report', api.report_json(v_report)));
end
$$;
ALTER FUNCTION api.users_report_create(token text, params jsonb, body jsonb) OWNER TO focus_owner;
CREATE FUNCTION api.uuid_field(body jsonb, field text, required boolean DEFAULT true) RETURNS uuid
    LANGUAGE plpgsql
    AS $$
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
ALTER FUNCTION api.uuid_field(body jsonb, field text, required boolean) OWNER TO focus_owner;
CREATE FUNCTION app.add_rollup_minutes(user_id uuid, ended_at timestamp with time zone, minutes integer) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_local timestamp;
begin
    if add_rollup_minutes.minutes = 0 or add_rollup_minutes.ended_at is null then
        return;
    end if;
    select add_rollup_minutes.ended_at at time zone u.time_zone into v_local
    from app.users u where u.id = add_rollup_minutes.user_id and u.deleted_at is null;
    if v_local is null then
        return;
    end if;
    if add_rollup_minutes.minutes > 0 then
        insert into app.daily_minutes as d (user_id, day, minutes)
        values (add_rollup_minutes.user_id, v_local::date, add_rollup_minutes.minutes)
        on conflict on constraint daily_minutes_pkey do update set minutes = d.minutes + excluded.minutes;
        insert into app.weekly_minutes as w (user_id, week, minutes)
        values (add_rollup_minutes.user_id, date_trunc('week', v_local)::date, add_rollup_minutes.minutes)
        on conflict on constraint weekly_minutes_pkey do update set minutes = w.minutes + excluded.minutes;
        return;
    end if;
    -- Taking minutes away: the row keeps what is left, or goes when nothing is.
    update app.daily_minutes d set minutes = d.minutes + add_rollup_minutes.minutes
    where d.user_id = add_rollup_minutes.user_id and d.day = v_local::date and d.minutes + add_rollup_minutes.minutes > 0;
    if not found then
        delete from app.daily_minutes d where d.user_id = add_rollup_minutes.user_id and d.day = v_local::date;
    end if;
    update app.weekly_minutes w set minutes = w.minutes + add_rollup_minutes.minutes
    where w.user_id = add_rollup_minutes.user_id and w.week = date_trunc('week', v_local)::date
      and w.minutes + add_rollup_minutes.minutes > 0;
    if not found then
        delete from app.weekly_minutes w where w.user_id = add_rollup_minutes.user_id and w.week = date_trunc('week', v_local)::date;
    end if;
end
$$;
ALTER FUNCTION app.add_rollup_minutes(user_id uuid, ended_at timestamp with time zone, minutes integer) OWNER TO focus_owner;
CREATE FUNCTION app.add_user_day(user_id uuid, day date, sessions integer) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_left integer;
begin
    if add_user_day.sessions > 0 then
        insert into app.session_user_days as d (user_id, day, sessions)
        values (add_user_day.user_id, add_user_day.day, add_user_day.sessions)
        on conflict on constraint session_user_days_pkey do update set sessions = d.sessions + excluded.sessions
        returning d.sessions into v_left;
        if v_left = add_user_day.sessions then
            insert into app.active_users_per_day as a (day, shard, users)
            values (add_user_day.day, app.counter_shard(add_user_day.user_id), 1)
            on conflict on constraint active_users_per_day_pkey do update set users = a.users + 1;
        end if;
        return;
    end if;
    update app.session_user_days d set sessions = d.sessions + add_user_day.sessions
    where d.user_id = add_user_day.user_id and d.day = add_user_day.day and d.sessions + add_user_day.sessions > 0;
    if not found then
        delete from app.session_user_days d where d.user_id = add_user_day.user_id and d.day = add_user_day.day;
        update app.active_users_per_day a set users = a.users - 1
        where a.day = add_user_day.day and a.shard = app.counter_shard(add_user_day.user_id);
    end if;
end
$$;
ALTER FUNCTION app.add_user_day(user_id uuid, day date, sessions integer) OWNER TO focus_owner;
CREATE FUNCTION app.announce_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_type text := tg_argv[0];
    v_version bigint;
begin
    if not exists (select from changed) then
        return null;
    end if;
    v_version := case v_type when 'catalog.changed' then (select v.version from app.catalog_version v)
                             else (select v.version from app.tips_version v) end;
    if (select e.payload -> 'version' from app.events e
        where e.user_id is null and e.type = v_type order by e.id desc limit 1) = to_jsonb(v_version) then
        return null;
    end if;
    insert into app.events (user_id, type, payload) values (null, v_type, jsonb_build_object('version', v_version));
    return null;
end
$$;
ALTER FUNCTION app.announce_version() OWNER TO focus_owner;
CREATE FUNCTION app.apply_ledger_entry() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    update app.users set balance = balance + new.amount where id = new.user_id;
    return null;
end
$$;
ALTER FUNCTION app.apply_ledger_entry() OWNER TO focus_owner;
CREATE FUNCTION app.avatar_max_bytes() RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ select 256 * 1024 $$;
ALTER FUNCTION app.avatar_max_bytes() OWNER TO focus_owner;
CREATE FUNCTION app.bump_catalog_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    update app.catalog_version set version = version + 1, changed_at = now();
    return null;
end
$$;
ALTER FUNCTION app.bump_catalog_version() OWNER TO focus_owner;
CREATE FUNCTION app.bump_tips_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    update app.tips_version set version = version + 1, changed_at = now();
    return null;
end
$$;
ALTER FUNCTION app.bump_tips_version() OWNER TO focus_owner;
CREATE FUNCTION app.coin_ledger_day_totals() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    insert into app.ledger_day_totals as t (day, shard, entries, earned, spent, granted)
    values ((new.created_at at time zone 'UTC')::date, app.counter_shard(new.user_id), 1,
            case when new.entry = 'earn' then new.amount else 0 end,
            case when new.entry = 'spend' then -new.amount else 0 end,
            case when new.entry = 'grant' then new.amount else 0 end)
    on conflict on constraint ledger_day_totals_pkey do update
        set entries = t.entries + 1, earned = t.earned + excluded.earned,
            spent = t.spent + excluded.spent, granted = t.granted + excluded.granted;
    return null;
end
$$;
ALTER FUNCTION app.coin_ledger_day_totals() OWNER TO focus_owner;
CREATE FUNCTION app.counter_shard(user_id uuid) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'public', 'pg_temp'
    AS $$ select (get_byte(uuid_send(counter_shard.user_id), 15) % 8)::smallint $$;
ALTER FUNCTION app.counter_shard(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION app.daily_minutes_count() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_old_first boolean := tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.day, old.minutes) < (new.day, new.minutes));
begin
    if tg_op = 'UPDATE' and (old.day, old.minutes, old.user_id) = (new.day, new.minutes, new.user_id) then
        return null;
    end if;
    -- The lower key first. (A decrement is an update: an upsert of -1 would fail the CHECK on
    -- its proposed row before it met the conflict.)
    if v_old_first then
        update app.daily_minutes_counts c set users = c.users - 1
        where c.day = old.day and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.daily_minutes_counts has no row for % % %', old.day, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    if tg_op <> 'DELETE' then
        insert into app.daily_minutes_counts as c (day, minutes, shard, users)
        values (new.day, new.minutes, app.counter_shard(new.user_id), 1)
        on conflict on constraint daily_minutes_counts_pkey do update set users = c.users + 1;
    end if;
    if tg_op = 'UPDATE' and not v_old_first then
        update app.daily_minutes_counts c set users = c.users - 1
        where c.day = old.day and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.daily_minutes_counts has no row for % % %', old.day, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    return null;
end
$$;
ALTER FUNCTION app.daily_minutes_count() OWNER TO focus_owner;
CREATE FUNCTION app.events_append_only() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if tg_op = 'DELETE' and current_setting('focus.pruning_events', true) = 'on' then
        return null;
    end if;
    raise exception 'events is append-only (app.prune_events deletes old rows)' using errcode = 'restrict_violation';
end
$$;
ALTER FUNCTION app.events_append_only() OWNER TO focus_owner;
CREATE FUNCTION app.events_commit_order() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    perform pg_advisory_xact_lock(hashtext('app.events: commit order'));
    return null;
end
$$;
ALTER FUNCTION app.events_commit_order() OWNER TO focus_owner;
CREATE FUNCTION app.events_notify() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    perform pg_notify('focus_events', coalesce(new.user_id::text, '*') || ':' || new.id);
    return null;
end
$$;
ALTER FUNCTION app.events_notify() OWNER TO focus_owner;
CREATE FUNCTION app.focus_sessions_day_totals() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_old_day date := case when tg_op <> 'INSERT' then (old.ended_at at time zone 'UTC')::date end;
    v_new_day date := case when tg_op <> 'DELETE' then (new.ended_at at time zone 'UTC')::date end;
    v_old_first boolean;
begin
    if v_old_day is null and v_new_day is null then
        return null;  -- a session still running: not counted
    end if;
    if tg_op = 'UPDATE' and (v_old_day, old.source, old.user_id) = (v_new_day, new.source, new.user_id) then
        -- The same row of totals (where the old values are): the differences (a payment).
        update app.session_day_totals t
        set minutes = t.minutes + (new.minutes - old.minutes), coins = t.coins + (new.coins_earned - old.coins_earned)
        where t.day = v_new_day and t.source = new.source and t.shard = app.counter_shard(new.user_id)
          and (new.minutes <> old.minutes or new.coins_earned <> old.coins_earned);
        return null;
    end if;
    -- Another row (or only one side): the lower key first.
    v_old_first := v_old_day is not null and (v_new_day is null or (v_old_day, old.source) < (v_new_day, new.source));
    if v_old_first then
        perform app.take_session_total(old);
    end if;
    if v_new_day is not null then
        insert into app.session_day_totals as t (day, source, shard, sessions, minutes, coins)
        values (v_new_day, new.source, app.counter_shard(new.user_id), 1, new.minutes, new.coins_earned)
        on conflict on constraint session_day_totals_pkey do update
            set sessions = t.sessions + 1, minutes = t.minutes + excluded.minutes, coins = t.coins + excluded.coins;
    end if;
    if v_old_day is not null and not v_old_first then
        perform app.take_session_total(old);
    end if;
    -- Active users: only when the session moves to another user or day (ascending days).
    if tg_op <> 'UPDATE' or old.user_id <> new.user_id or v_old_day is distinct from v_new_day then
        if v_new_day is not null and (v_old_day is null or v_new_day < v_old_day) then
            perform app.add_user_day(new.user_id, v_new_day, 1);
            if v_old_day is not null then
                perform app.add_user_day(old.user_id, v_old_day, -1);
            end if;
        else
            if v_old_day is not null then
                perform app.add_user_day(old.user_id, v_old_day, -1);
            end if;
            if v_new_day is not null then
                perform app.add_user_day(new.user_id, v_new_day, 1);
            end if;
        end if;
    end if;
    return null;
end
$$;
ALTER FUNCTION app.focus_sessions_day_totals() OWNER TO focus_owner;
CREATE FUNCTION app.focus_sessions_events() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_today timestamptz := date_trunc('day', now() at time zone 'UTC') at time zone 'UTC';
    v_before integer := 0;
    v_after integer := 0;
begin
    if tg_op in ('UPDATE', 'DELETE') and old.ended_at >= v_today then
        v_before := coalesce(old.minutes, 0);
    end if;
    if tg_op in ('INSERT', 'UPDATE') and new.ended_at >= v_today then
        v_after := coalesce(new.minutes, 0);
    end if;
    if v_before <> v_after then
        perform app.tell_friends(case when tg_op = 'DELETE' then old.user_id else new.user_id end);
    end if;
    return null;
end
$$;
ALTER FUNCTION app.focus_sessions_events() OWNER TO focus_owner;
CREATE FUNCTION app.focus_sessions_rollup() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if tg_op in ('UPDATE', 'DELETE') then
        perform app.add_rollup_minutes(old.user_id, old.ended_at, -coalesce(old.minutes, 0));
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
        perform app.add_rollup_minutes(new.user_id, new.ended_at, coalesce(new.minutes, 0));
    end if;
    return null;
end
$$;
ALTER FUNCTION app.focus_sessions_rollup() OWNER TO focus_owner;
CREATE FUNCTION app.forbid_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
begin
    raise exception '% is append-only', tg_table_name using errcode = 'restrict_violation';
end
$$;
ALTER FUNCTION app.forbid_change() OWNER TO focus_owner;
CREATE FUNCTION app.friendship_events_events() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_other uuid := case when new.actor = new.user_low then new.user_high else new.user_low end;
begin
    insert into app.events (user_id, type, payload)
    values (v_other,
            case new.action when 'asked' then 'friend_request.received'
                            when 'accepted' then 'friend_request.accepted'
                            when 'declined' then 'friend_request.ended'
                            when 'cancelled' then 'friend_request.ended'
                            when 'removed' then 'friend.removed' end,
            case when new.action in ('declined', 'cancelled') then jsonb_build_object('request_id', new.request_id)
                 when new.action = 'removed' then jsonb_build_object('user_id', new.actor)
                 else jsonb_build_object('request_id', new.request_id, 'user_id', new.actor) end);
    return null;
end
$$;
ALTER FUNCTION app.friendship_events_events() OWNER TO focus_owner;
CREATE FUNCTION app.grant_coins(user_id uuid, coins integer, reason text) RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_balance integer;
begin
    insert into app.coin_ledger (user_id, entry, amount, reason)
    values (grant_coins.user_id, 'grant', grant_coins.coins, grant_coins.reason);
    select u.balance into v_balance from app.users u where u.id = grant_coins.user_id;
    return v_balance;
end
$$;
ALTER FUNCTION app.grant_coins(user_id uuid, coins integer, reason text) OWNER TO focus_owner;
CREATE FUNCTION app.prune_events() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_count integer;
    v_last bigint;
begin
    perform set_config('focus.pruning_events', 'on', true);
    with gone as (
        delete from app.events e
        where e.created_at < now() - (select s.retention from app.event_settings s)
        returning e.id
    )
    select count(*)::integer, max(gone.id) into v_count, v_last from gone;
    perform set_config('focus.pruning_events', 'off', true);
    if v_last is not null then
        update app.event_settings s set pruned_through = greatest(s.pruned_through, v_last);
    end if;
    return v_count;
end
$$;
ALTER FUNCTION app.prune_events() OWNER TO focus_owner;
CREATE FUNCTION app.prune_idempotency_keys() RETURNS integer
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    with gone as (
        delete from app.idempotency_keys k
        where k.created_at < now() - (select s.retention from app.idempotency_settings s)
        returning 1)
    select count(*)::integer from gone
$$;
ALTER FUNCTION app.prune_idempotency_keys() OWNER TO focus_owner;
CREATE FUNCTION app.rebuild_rollup(user_id uuid) RETURNS void
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    delete from app.daily_minutes d where d.user_id = rebuild_rollup.user_id;
    delete from app.weekly_minutes w where w.user_id = rebuild_rollup.user_id;
    insert into app.daily_minutes (user_id, day, minutes)
    select s.user_id, (s.ended_at at time zone u.time_zone)::date, sum(s.minutes)
    from app.focus_sessions s join app.users u on u.id = s.user_id
    where s.user_id = rebuild_rollup.user_id and u.deleted_at is null and s.minutes > 0
    group by 1, 2;
    insert into app.weekly_minutes (user_id, week, minutes)
    select s.user_id, date_trunc('week', s.ended_at at time zone u.time_zone)::date, sum(s.minutes)
    from app.focus_sessions s join app.users u on u.id = s.user_id
    where s.user_id = rebuild_rollup.user_id and u.deleted_at is null and s.minutes > 0
    group by 1, 2;
$$;
ALTER FUNCTION app.rebuild_rollup(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION app.take_outgoing_mail(batch integer DEFAULT 50) RETURNS TABLE(id bigint, recipient public.citext, subject text, body text, created_at timestamp with time zone)
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    with taken as (
        select m.id, m.recipient, m.subject, m.body, m.created_at
        from app.outgoing_mail m
        where m.sent_at is null
        order by m.id
        limit take_outgoing_mail.batch
        for update skip locked
    ), marked as (
        update app.outgoing_mail m set sent_at = now(), body = '(sent)'
        from taken t where m.id = t.id
    )
    select t.id, t.recipient, t.subject, t.body, t.created_at from taken t order by t.id
$$;
ALTER FUNCTION app.take_outgoing_mail(batch integer) OWNER TO focus_owner;
CREATE FUNCTION app.take_session_total(session app.focus_sessions) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    update app.session_day_totals t
    set sessions = t.sessions - 1, minutes = t.minutes - take_session_total.session.minutes,
        coins = t.coins - take_session_total.session.coins_earned
    where t.day = (take_session_total.session.ended_at at time zone 'UTC')::date
      and t.source = take_session_total.session.source and t.shard = app.counter_shard(take_session_total.session.user_id);
    if not found then
        raise exception 'app.session_day_totals has no row for session %', take_session_total.session.id;
    end if;
end
$$;
ALTER FUNCTION app.take_session_total(session app.focus_sessions) OWNER TO focus_owner;
CREATE FUNCTION app.tell_friends(user_id uuid) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if exists (select from app.friendships f
               where (f.user_low = tell_friends.user_id or f.user_high = tell_friends.user_id)
                 and f.status = 'accepted') then
        insert into app.events (user_id, type, payload)
        select case when f.user_low = tell_friends.user_id then f.user_high else f.user_low end,
               'friend.updated', jsonb_build_object('user_id', tell_friends.user_id)
        from app.friendships f
        where (f.user_low = tell_friends.user_id or f.user_high = tell_friends.user_id) and f.status = 'accepted'
        order by 1;
    end if;
end
$$;
ALTER FUNCTION app.tell_friends(user_id uuid) OWNER TO focus_owner;
CREATE FUNCTION app.tell_friends_of_row() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    perform app.tell_friends(case when tg_op = 'DELETE' then old.user_id else new.user_id end);
    return null;
end
$$;
ALTER FUNCTION app.tell_friends_of_row() OWNER TO focus_owner;
CREATE FUNCTION app.users_events() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if new.display_name is distinct from old.display_name then
        perform app.tell_friends(new.id);
    end if;
    if new.balance is distinct from old.balance then
        insert into app.events (user_id, type, payload)
        values (new.id, 'balance.changed', jsonb_build_object('balance', new.balance));
    end if;
    return null;
end
$$;
ALTER FUNCTION app.users_events() OWNER TO focus_owner;
CREATE FUNCTION app.users_rollup() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    perform app.rebuild_rollup(new.id);
    return null;
end
$$;
ALTER FUNCTION app.users_rollup() OWNER TO focus_owner;
CREATE FUNCTION app.weekly_minutes_count() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
declare
    v_old_first boolean := tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.week, old.minutes) < (new.week, new.minutes));
begin
    if tg_op = 'UPDATE' and (old.week, old.minutes, old.user_id) = (new.week, new.minutes, new.user_id) then
        return null;
    end if;
    -- The lower key first. (A decrement is an update: an upsert of -1 would fail the CHECK on
    -- its proposed row before it met the conflict.)
    if v_old_first then
        update app.weekly_minutes_counts c set users = c.users - 1
        where c.week = old.week and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.weekly_minutes_counts has no row for % % %', old.week, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    if tg_op <> 'DELETE' then
        insert into app.weekly_minutes_counts as c (week, minutes, shard, users)
        values (new.week, new.minutes, app.counter_shard(new.user_id), 1)
        on conflict on constraint weekly_minutes_counts_pkey do update set users = c.users + 1;
    end if;
    if tg_op = 'UPDATE' and not v_old_first then
        update app.weekly_minutes_counts c set users = c.users - 1
        where c.week = old.week and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.weekly_minutes_counts has no row for % % %', old.week, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    return null;
end
$$;
ALTER FUNCTION app.weekly_minutes_count() OWNER TO focus_owner;
CREATE TABLE app.active_users_per_day (
    day date NOT NULL,
    shard smallint NOT NULL,
    users integer NOT NULL,
    CONSTRAINT active_users_per_day_users_check CHECK ((users >= 0))
);
ALTER TABLE app.active_users_per_day OWNER TO focus_owner;
CREATE TABLE app.asset_settings (
    singleton boolean DEFAULT true NOT NULL,
    base_url text,
    CONSTRAINT asset_settings_base_url_check CHECK ((base_url ~ '^https?://[^\s]+/$'::text)),
    CONSTRAINT asset_settings_singleton_check CHECK (singleton)
);
ALTER TABLE app.asset_settings OWNER TO focus_owner;
CREATE TABLE app.assets (
    key text NOT NULL,
    hashed_name text NOT NULL,
    CONSTRAINT assets_hashed_name_check CHECK ((hashed_name ~ '^[a-z0-9_./-]+$'::text)),
    CONSTRAINT assets_key_check CHECK ((key ~ '^[a-z0-9_./-]+$'::text))
);
ALTER TABLE app.assets OWNER TO focus_owner;
CREATE TABLE app.auth_settings (
    singleton boolean DEFAULT true NOT NULL,
    bcrypt_cost integer NOT NULL,
    token_ttl interval NOT NULL,
    max_failed_logins integer NOT NULL,
    failed_login_window interval NOT NULL,
    max_failed_logins_per_email integer DEFAULT 50 NOT NULL,
    known_address_ttl interval DEFAULT '30 days'::interval NOT NULL,
    token_touch_interval interval DEFAULT '01:00:00'::interval NOT NULL,
    reset_code_ttl interval DEFAULT '00:15:00'::interval NOT NULL,
    max_reset_mails integer DEFAULT 3 NOT NULL,
    reset_mail_window interval DEFAULT '01:00:00'::interval NOT NULL,
    CONSTRAINT auth_settings_bcrypt_cost_check CHECK (((bcrypt_cost >= 4) AND (bcrypt_cost <= 15))),
    CONSTRAINT auth_settings_failed_login_window_check CHECK ((failed_login_window > '00:00:00'::interval)),
    CONSTRAINT auth_settings_known_address_ttl_check CHECK ((known_address_ttl > '00:00:00'::interval)),
    CONSTRAINT auth_settings_max_failed_logins_check CHECK ((max_failed_logins > 0)),
    CONSTRAINT auth_settings_max_failed_logins_per_email_check CHECK ((max_failed_logins_per_email > 0)),
    CONSTRAINT auth_settings_max_reset_mails_check CHECK ((max_reset_mails > 0)),
    CONSTRAINT auth_settings_reset_code_ttl_check CHECK (((reset_code_ttl >= '00:01:00'::interval) AND (reset_code_ttl <= '1 day'::interval))),
    CONSTRAINT auth_settings_reset_mail_window_check CHECK ((reset_mail_window > '00:00:00'::interval)),
    CONSTRAINT auth_settings_singleton_check CHECK (singleton),
    CONSTRAINT auth_settings_token_touch_interval_check CHECK (((token_touch_interval >= '00:00:00'::interval) AND (token_touch_interval <= '1 day'::interval))),
    CONSTRAINT auth_settings_token_ttl_check CHECK ((token_ttl > '00:00:00'::interval))
);
ALTER TABLE app.auth_settings OWNER TO focus_owner;
CREATE TABLE app.avatars (
    user_id uuid NOT NULL,
    content_type text NOT NULL,
    data bytea NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT avatars_check CHECK (
CASE content_type
    WHEN 'image/png'::text THEN (SUBSTRING(data FROM 1 FOR 8) = '\x89504e470d0a1a0a'::bytea)
    WHEN 'image/jpeg'::text THEN (SUBSTRING(data FROM 1 FOR 3) = '\xffd8ff'::bytea)
    ELSE NULL::boolean
END),
    CONSTRAINT avatars_content_type_check CHECK ((content_type = ANY (ARRAY['image/png'::text, 'image/jpeg'::text]))),
    CONSTRAINT avatars_data_check CHECK (((length(data) >= 4) AND (length(data) <= app.avatar_max_bytes())))
);
ALTER TABLE app.avatars OWNER TO focus_owner;
CREATE TABLE app.blocks (
    blocker uuid NOT NULL,
    blocked uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT blocks_check CHECK ((blocker <> blocked))
);
ALTER TABLE app.blocks OWNER TO focus_owner;
CREATE TABLE app.catalog_version (
    singleton boolean DEFAULT true NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    changed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT catalog_version_singleton_check CHECK (singleton)
);
ALTER TABLE app.catalog_version OWNER TO focus_owner;
CREATE TABLE app.coin_ledger (
    id bigint NOT NULL,
    user_id uuid NOT NULL,
    entry text NOT NULL,
    amount integer NOT NULL,
    reason text NOT NULL,
    item_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    session_id uuid,
    CONSTRAINT coin_ledger_amount_check CHECK ((amount <> 0)),
    CONSTRAINT coin_ledger_check CHECK (((entry <> 'earn'::text) OR (amount > 0))),
    CONSTRAINT coin_ledger_check1 CHECK (((entry = 'spend'::text) = (amount < 0))),
    CONSTRAINT coin_ledger_check2 CHECK (((entry = 'spend'::text) = (item_id IS NOT NULL))),
    CONSTRAINT coin_ledger_earn_has_session CHECK (((entry = 'earn'::text) = (session_id IS NOT NULL))),
    CONSTRAINT coin_ledger_entry_check CHECK ((entry = ANY (ARRAY['earn'::text, 'spend'::text, 'grant'::text]))),
    CONSTRAINT coin_ledger_reason_check CHECK (((length(reason) >= 1) AND (length(reason) <= 200)))
);
ALTER TABLE app.coin_ledger OWNER TO focus_owner;
ALTER TABLE app.coin_ledger ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME app.coin_ledger_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE app.daily_minutes (
    user_id uuid NOT NULL,
    day date NOT NULL,
    minutes integer NOT NULL,
    CONSTRAINT daily_minutes_minutes_check CHECK ((minutes > 0))
);
ALTER TABLE app.daily_minutes OWNER TO focus_owner;
CREATE TABLE app.daily_minutes_counts (
    day date NOT NULL,
    minutes integer NOT NULL,
    shard smallint NOT NULL,
    users integer NOT NULL,
    CONSTRAINT daily_minutes_counts_minutes_check CHECK ((minutes > 0)),
    CONSTRAINT daily_minutes_counts_users_check CHECK ((users >= 0))
);
ALTER TABLE app.daily_minutes_counts OWNER TO focus_owner;
CREATE TABLE app.economy_settings (
    singleton boolean DEFAULT true NOT NULL,
    coins_per_minute numeric(6,2) NOT NULL,
    min_minutes_to_earn integer NOT NULL,
    max_session_minutes integer NOT NULL,
    offline_daily_coin_cap integer NOT NULL,
    offline_max_age interval NOT NULL,
    clock_skew interval NOT NULL,
    CONSTRAINT economy_settings_clock_skew_check CHECK (((clock_skew >= '00:00:00'::interval) AND (clock_skew <= '01:00:00'::interval))),
    CONSTRAINT economy_settings_coins_per_minute_check CHECK ((coins_per_minute >= (0)::numeric)),
    CONSTRAINT economy_settings_max_session_minutes_check CHECK (((max_session_minutes >= 1) AND (max_session_minutes <= 1440))),
    CONSTRAINT economy_settings_min_minutes_to_earn_check CHECK ((min_minutes_to_earn >= 1)),
    CONSTRAINT economy_settings_offline_daily_coin_cap_check CHECK ((offline_daily_coin_cap >= 0)),
    CONSTRAINT economy_settings_offline_max_age_check CHECK ((offline_max_age > '00:00:00'::interval)),
    CONSTRAINT economy_settings_singleton_check CHECK (singleton)
);
ALTER TABLE app.economy_settings OWNER TO focus_owner;
CREATE TABLE app.event_settings (
    singleton boolean DEFAULT true NOT NULL,
    retention interval DEFAULT '7 days'::interval NOT NULL,
    max_streams_per_user integer DEFAULT 3 NOT NULL,
    pruned_through bigint DEFAULT 0 NOT NULL,
    CONSTRAINT event_settings_max_streams_per_user_check CHECK (((max_streams_per_user >= 1) AND (max_streams_per_user <= 100))),
    CONSTRAINT event_settings_pruned_through_check CHECK ((pruned_through >= 0)),
    CONSTRAINT event_settings_retention_check CHECK ((retention >= '01:00:00'::interval)),
    CONSTRAINT event_settings_singleton_check CHECK (singleton)
);
ALTER TABLE app.event_settings OWNER TO focus_owner;
CREATE TABLE app.events (
    id bigint NOT NULL,
    user_id uuid,
    type text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT events_check CHECK (((user_id IS NULL) = (type = ANY (ARRAY['catalog.changed'::text, 'tips.changed'::text])))),
    CONSTRAINT events_payload_check CHECK (((jsonb_typeof(payload) = 'object'::text) AND (length((payload)::text) <= 1000))),
    CONSTRAINT events_type_check CHECK ((type = ANY (ARRAY['friend_request.received'::text, 'friend_request.accepted'::text, 'friend_request.ended'::text, 'friend.removed'::text, 'friend.updated'::text, 'balance.changed'::text, 'catalog.changed'::text, 'tips.changed'::text])))
);
ALTER TABLE app.events OWNER TO focus_owner;
ALTER TABLE app.events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME app.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE app.friend_request_attempts (
    user_id uuid NOT NULL,
    attempted_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE app.friend_request_attempts OWNER TO focus_owner;
CREATE TABLE app.friendship_events (
    id bigint NOT NULL,
    request_id uuid NOT NULL,
    user_low uuid NOT NULL,
    user_high uuid NOT NULL,
    actor uuid NOT NULL,
    action text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT friendship_events_action_check CHECK ((action = ANY (ARRAY['asked'::text, 'accepted'::text, 'declined'::text, 'cancelled'::text, 'removed'::text]))),
    CONSTRAINT friendship_events_check CHECK (((actor = user_low) OR (actor = user_high)))
);
ALTER TABLE app.friendship_events OWNER TO focus_owner;
ALTER TABLE app.friendship_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME app.friendship_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE app.idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    route text NOT NULL,
    request_digest bytea NOT NULL,
    token_digest bytea,
    reply jsonb,
    sealed_reply bytea,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT idempotency_keys_key_check CHECK ((key ~ '^[\x21-\x7e]{1,255}$'::text)),
    CONSTRAINT idempotency_keys_scope_check CHECK (((length(scope) >= 1) AND (length(scope) <= 400)))
);
ALTER TABLE app.idempotency_keys OWNER TO focus_owner;
CREATE TABLE app.idempotency_settings (
    singleton boolean DEFAULT true NOT NULL,
    retention interval DEFAULT '24:00:00'::interval NOT NULL,
    CONSTRAINT idempotency_settings_retention_check CHECK ((retention >= '01:00:00'::interval)),
    CONSTRAINT idempotency_settings_singleton_check CHECK (singleton)
);
ALTER TABLE app.idempotency_settings OWNER TO focus_owner;
CREATE TABLE app.ledger_day_totals (
    day date NOT NULL,
    shard smallint NOT NULL,
    entries bigint NOT NULL,
    earned bigint NOT NULL,
    spent bigint NOT NULL,
    granted bigint NOT NULL,
    CONSTRAINT ledger_day_totals_entries_check CHECK ((entries >= 0))
);
ALTER TABLE app.ledger_day_totals OWNER TO focus_owner;
CREATE TABLE app.login_addresses (
    user_id uuid NOT NULL,
    client_ip inet NOT NULL,
    last_success_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE app.login_addresses OWNER TO focus_owner;
CREATE TABLE app.login_failures (
    email public.citext NOT NULL,
    failed_at timestamp with time zone DEFAULT now() NOT NULL,
    client_ip inet
);
ALTER TABLE app.login_failures OWNER TO focus_owner;
CREATE TABLE app.outgoing_mail (
    id bigint NOT NULL,
    recipient public.citext NOT NULL,
    subject text NOT NULL,
    body text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    sent_at timestamp with time zone
);
ALTER TABLE app.outgoing_mail OWNER TO focus_owner;
ALTER TABLE app.outgoing_mail ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME app.outgoing_mail_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE app.password_resets (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    user_id uuid NOT NULL,
    digest bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    CONSTRAINT password_resets_check CHECK ((expires_at > created_at)),
    CONSTRAINT password_resets_digest_check CHECK ((length(digest) = 32))
);
ALTER TABLE app.password_resets OWNER TO focus_owner;
CREATE TABLE app.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE app.schema_migrations OWNER TO focus_owner;
CREATE TABLE app.session_day_totals (
    day date NOT NULL,
    source text NOT NULL,
    shard smallint NOT NULL,
    sessions bigint NOT NULL,
    minutes bigint NOT NULL,
    coins bigint NOT NULL,
    CONSTRAINT session_day_totals_coins_check CHECK ((coins >= 0)),
    CONSTRAINT session_day_totals_minutes_check CHECK ((minutes >= 0)),
    CONSTRAINT session_day_totals_sessions_check CHECK ((sessions >= 0))
);
ALTER TABLE app.session_day_totals OWNER TO focus_owner;
CREATE TABLE app.session_user_days (
    user_id uuid NOT NULL,
    day date NOT NULL,
    sessions integer NOT NULL,
    CONSTRAINT session_user_days_sessions_check CHECK ((sessions > 0))
);
ALTER TABLE app.session_user_days OWNER TO focus_owner;
CREATE TABLE app.social_settings (
    singleton boolean DEFAULT true NOT NULL,
    max_friend_requests integer NOT NULL,
    friend_request_window interval NOT NULL,
    CONSTRAINT social_settings_friend_request_window_check CHECK ((friend_request_window > '00:00:00'::interval)),
    CONSTRAINT social_settings_max_friend_requests_check CHECK ((max_friend_requests > 0)),
    CONSTRAINT social_settings_singleton_check CHECK (singleton)
);
ALTER TABLE app.social_settings OWNER TO focus_owner;
CREATE TABLE app.tip_views (
    id bigint NOT NULL,
    user_id uuid NOT NULL,
    tip_id uuid NOT NULL,
    session_id uuid NOT NULL,
    shown_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE app.tip_views OWNER TO focus_owner;
ALTER TABLE app.tip_views ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME app.tip_views_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE app.tips_version (
    singleton boolean DEFAULT true NOT NULL,
    version bigint DEFAULT 1 NOT NULL,
    changed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT tips_version_singleton_check CHECK (singleton)
);
ALTER TABLE app.tips_version OWNER TO focus_owner;
CREATE TABLE app.user_items (
    user_id uuid NOT NULL,
    item_id uuid NOT NULL,
    acquired_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE app.user_items OWNER TO focus_owner;
CREATE TABLE app.user_selections (
    user_id uuid NOT NULL,
    kind text NOT NULL,
    item_id uuid NOT NULL
);
ALTER TABLE app.user_selections OWNER TO focus_owner;
CREATE TABLE app.weekly_minutes (
    user_id uuid NOT NULL,
    week date NOT NULL,
    minutes integer NOT NULL,
    CONSTRAINT weekly_minutes_minutes_check CHECK ((minutes > 0))
);
ALTER TABLE app.weekly_minutes OWNER TO focus_owner;
CREATE TABLE app.weekly_minutes_counts (
    week date NOT NULL,
    minutes integer NOT NULL,
    shard smallint NOT NULL,
    users integer NOT NULL,
    CONSTRAINT weekly_minutes_counts_minutes_check CHECK ((minutes > 0)),
    CONSTRAINT weekly_minutes_counts_users_check CHECK ((users >= 0))
);
ALTER TABLE app.weekly_minutes_counts OWNER TO focus_owner;
CREATE VIEW report.coin_economy_per_day AS
 SELECT d.day,
    d.earned,
    d.spent,
    d.granted,
    sum(((d.earned - d.spent) + d.granted)) OVER (ORDER BY d.day) AS outstanding_end_of_day
   FROM ( SELECT l.day,
            (sum(l.earned))::bigint AS earned,
            (sum(l.spent))::bigint AS spent,
            (sum(l.granted))::bigint AS granted
           FROM app.ledger_day_totals l
          GROUP BY l.day
         HAVING (sum(l.entries) > (0)::numeric)) d;
ALTER TABLE report.coin_economy_per_day OWNER TO focus_owner;
CREATE VIEW report.counter_reconciliation AS
 WITH kept(counter, key, value) AS (
         SELECT 'daily_minutes'::text AS "?column?",
            jsonb_build_object('user_id', d.user_id, 'day', d.day) AS jsonb_build_object,
            jsonb_build_array((d.minutes)::bigint) AS jsonb_build_array
           FROM app.daily_minutes d
        UNION ALL
         SELECT 'weekly_minutes'::text,
            jsonb_build_object('user_id', w.user_id, 'week', w.week) AS jsonb_build_object,
            jsonb_build_array((w.minutes)::bigint) AS jsonb_build_array
           FROM app.weekly_minutes w
        UNION ALL
         SELECT 'daily_minutes_counts'::text,
            jsonb_build_object('day', c.day, 'minutes', c.minutes, 'shard', c.shard) AS jsonb_build_object,
            jsonb_build_array((c.users)::bigint) AS jsonb_build_array
           FROM app.daily_minutes_counts c
          WHERE (c.users <> 0)
        UNION ALL
         SELECT 'weekly_minutes_counts'::text,
            jsonb_build_object('week', c.week, 'minutes', c.minutes, 'shard', c.shard) AS jsonb_build_object,
            jsonb_build_array((c.users)::bigint) AS jsonb_build_array
           FROM app.weekly_minutes_counts c
          WHERE (c.users <> 0)
        UNION ALL
         SELECT 'session_day_totals'::text,
            jsonb_build_object('day', t.day, 'source', t.source, 'shard', t.shard) AS jsonb_build_object,
            jsonb_build_array(t.sessions, t.minutes, t.coins) AS jsonb_build_array
           FROM app.session_day_totals t
          WHERE ((t.sessions <> 0) OR (t.minutes <> 0) OR (t.coins <> 0))
        UNION ALL
         SELECT 'session_user_days'::text,
            jsonb_build_object('user_id', d.user_id, 'day', d.day) AS jsonb_build_object,
            jsonb_build_array((d.sessions)::bigint) AS jsonb_build_array
           FROM app.session_user_days d
        UNION ALL
         SELECT 'active_users_per_day'::text,
            jsonb_build_object('day', a.day, 'shard', a.shard) AS jsonb_build_object,
            jsonb_build_array((a.users)::bigint) AS jsonb_build_array
           FROM app.active_users_per_day a
          WHERE (a.users <> 0)
        UNION ALL
         SELECT 'ledger_day_totals'::text,
            jsonb_build_object('day', l.day, 'shard', l.shard) AS jsonb_build_object,
            jsonb_build_array(l.entries, l.earned, l.spent, l.granted) AS jsonb_build_array
           FROM app.ledger_day_totals l
          WHERE (l.entries <> 0)
        ), rollup AS (
         SELECT s.user_id,
            ((s.ended_at AT TIME ZONE u.time_zone))::date AS day,
            (date_trunc('week'::text, (s.ended_at AT TIME ZONE u.time_zone)))::date AS week,
            s.minutes
           FROM (app.focus_sessions s
             JOIN app.users u ON ((u.id = s.user_id)))
          WHERE ((u.deleted_at IS NULL) AND (s.minutes > 0))
        ), daily AS (
         SELECT r_1.user_id,
            r_1.day,
            sum(r_1.minutes) AS minutes
           FROM rollup r_1
          GROUP BY r_1.user_id, r_1.day
        ), weekly AS (
         SELECT r_1.user_id,
            r_1.week,
            sum(r_1.minutes) AS minutes
           FROM rollup r_1
          GROUP BY r_1.user_id, r_1.week
        ), finished AS (
         SELECT s.user_id,
            ((s.ended_at AT TIME ZONE 'UTC'::text))::date AS day,
            s.source,
            s.minutes,
            s.coins_earned
           FROM app.focus_sessions s
          WHERE (s.ended_at IS NOT NULL)
        ), user_days AS (
         SELECT f.user_id,
            f.day,
            count(*) AS sessions
           FROM finished f
          GROUP BY f.user_id, f.day
        ), recounted(counter, key, value) AS (
         SELECT 'daily_minutes'::text AS "?column?",
            jsonb_build_object('user_id', d.user_id, 'day', d.day) AS jsonb_build_object,
            jsonb_build_array(d.minutes) AS jsonb_build_array
           FROM daily d
        UNION ALL
         SELECT 'weekly_minutes'::text,
            jsonb_build_object('user_id', w.user_id, 'week', w.week) AS jsonb_build_object,
            jsonb_build_array(w.minutes) AS jsonb_build_array
           FROM weekly w
        UNION ALL
         SELECT 'daily_minutes_counts'::text,
            jsonb_build_object('day', d.day, 'minutes', d.minutes, 'shard', app.counter_shard(d.user_id)) AS jsonb_build_object,
            jsonb_build_array(count(*)) AS jsonb_build_array
           FROM daily d
          GROUP BY d.day, d.minutes, (app.counter_shard(d.user_id))
        UNION ALL
         SELECT 'weekly_minutes_counts'::text,
            jsonb_build_object('week', w.week, 'minutes', w.minutes, 'shard', app.counter_shard(w.user_id)) AS jsonb_build_object,
            jsonb_build_array(count(*)) AS jsonb_build_array
           FROM weekly w
          GROUP BY w.week, w.minutes, (app.counter_shard(w.user_id))
        UNION ALL
         SELECT 'session_day_totals'::text,
            jsonb_build_object('day', f.day, 'source', f.source, 'shard', app.counter_shard(f.user_id)) AS jsonb_build_object,
            jsonb_build_array(count(*), sum(f.minutes), sum(f.coins_earned)) AS jsonb_build_array
           FROM finished f
          GROUP BY f.day, f.source, (app.counter_shard(f.user_id))
        UNION ALL
         SELECT 'session_user_days'::text,
            jsonb_build_object('user_id', d.user_id, 'day', d.day) AS jsonb_build_object,
            jsonb_build_array(d.sessions) AS jsonb_build_array
           FROM user_days d
        UNION ALL
         SELECT 'active_users_per_day'::text,
            jsonb_build_object('day', d.day, 'shard', app.counter_shard(d.user_id)) AS jsonb_build_object,
            jsonb_build_array(count(*)) AS jsonb_build_array
           FROM user_days d
          GROUP BY d.day, (app.counter_shard(d.user_id))
        UNION ALL
         SELECT 'ledger_day_totals'::text,
            jsonb_build_object('day', ((c.created_at AT TIME ZONE 'UTC'::text))::date, 'shard', app.counter_shard(c.user_id)) AS jsonb_build_object,
            jsonb_build_array(count(*), COALESCE(sum(c.amount) FILTER (WHERE (c.entry = 'earn'::text)), (0)::bigint), COALESCE((- sum(c.amount) FILTER (WHERE (c.entry = 'spend'::text))), (0)::bigint), COALESCE(sum(c.amount) FILTER (WHERE (c.entry = 'grant'::text)), (0)::bigint)) AS jsonb_build_array
           FROM app.coin_ledger c
          GROUP BY (((c.created_at AT TIME ZONE 'UTC'::text))::date), (app.counter_shard(c.user_id))
        )
 SELECT COALESCE(k.counter, r.counter) AS counter,
    COALESCE(k.key, r.key) AS key,
    k.value AS kept,
    r.value AS recounted
   FROM (kept k
     FULL JOIN recounted r ON (((r.counter = k.counter) AND (r.key = k.key))))
  WHERE (k.value IS DISTINCT FROM r.value);
ALTER TABLE report.counter_reconciliation OWNER TO focus_owner;
CREATE VIEW report.daily_active_users AS
 SELECT a.day,
    sum(a.users) AS active_users
   FROM app.active_users_per_day a
  GROUP BY a.day
 HAVING (sum(a.users) > 0);
ALTER TABLE report.daily_active_users OWNER TO focus_owner;
CREATE VIEW report.focused_minutes_per_day AS
 SELECT t.day,
    (sum(t.sessions))::bigint AS sessions,
    (sum(t.minutes))::bigint AS minutes,
    round((sum(t.minutes) / sum(t.sessions)), 1) AS average_minutes
   FROM app.session_day_totals t
  GROUP BY t.day
 HAVING (sum(t.sessions) > (0)::numeric);
ALTER TABLE report.focused_minutes_per_day OWNER TO focus_owner;
CREATE VIEW report.friendship_funnel_per_day AS
 SELECT ((e.created_at AT TIME ZONE 'UTC'::text))::date AS day,
    count(*) FILTER (WHERE (e.action = 'asked'::text)) AS asked,
    count(*) FILTER (WHERE (e.action = 'accepted'::text)) AS accepted,
    count(*) FILTER (WHERE (e.action = 'declined'::text)) AS declined,
    count(*) FILTER (WHERE (e.action = 'cancelled'::text)) AS cancelled,
    count(*) FILTER (WHERE (e.action = 'removed'::text)) AS removed
   FROM app.friendship_events e
  GROUP BY (((e.created_at AT TIME ZONE 'UTC'::text))::date);
ALTER TABLE report.friendship_funnel_per_day OWNER TO focus_owner;
CREATE VIEW report.ledger_reconciliation AS
 SELECT u.id AS user_id,
    u.balance,
    COALESCE(l.ledger_sum, (0)::bigint) AS ledger_sum,
    (u.balance - COALESCE(l.ledger_sum, (0)::bigint)) AS difference
   FROM (app.users u
     LEFT JOIN ( SELECT c.user_id,
            sum(c.amount) AS ledger_sum
           FROM app.coin_ledger c
          GROUP BY c.user_id) l ON ((l.user_id = u.id)))
  WHERE (u.balance <> COALESCE(l.ledger_sum, (0)::bigint));
ALTER TABLE report.ledger_reconciliation OWNER TO focus_owner;
CREATE VIEW report.sales_per_item AS
SELECT
    NULL::uuid AS item_id,
    NULL::text AS kind,
    NULL::text AS name,
    NULL::integer AS price,
    NULL::boolean AS active,
    NULL::bigint AS sales,
    NULL::bigint AS coins,
    NULL::bigint AS buyers,
    NULL::bigint AS owners;
ALTER TABLE report.sales_per_item OWNER TO focus_owner;
CREATE VIEW report.sessions_per_day_by_path AS
 SELECT t.day,
    t.source AS path,
    (sum(t.sessions))::bigint AS sessions,
    (sum(t.minutes))::bigint AS minutes,
    (sum(t.coins))::bigint AS coins
   FROM app.session_day_totals t
  GROUP BY t.day, t.source
 HAVING (sum(t.sessions) > (0)::numeric);
ALTER TABLE report.sessions_per_day_by_path OWNER TO focus_owner;
CREATE VIEW report.tips_shown_per_level AS
 SELECT t.rating_level,
    count(v.id) AS times_shown,
    count(DISTINCT v.tip_id) AS distinct_tips_shown,
    count(DISTINCT v.user_id) AS users,
    ( SELECT count(*) AS count
           FROM app.mindfulness_tips a
          WHERE ((a.rating_level = t.rating_level) AND a.active)) AS active_tips
   FROM (app.mindfulness_tips t
     LEFT JOIN app.tip_views v ON ((v.tip_id = t.id)))
  GROUP BY t.rating_level;
ALTER TABLE report.tips_shown_per_level OWNER TO focus_owner;
CREATE VIEW report.user_reports AS
 SELECT r.id AS report_id,
    r.created_at,
    r.reason,
    r.details,
    r.reported AS reported_user_id,
    u.display_name AS reported_display_name,
    (EXISTS ( SELECT
           FROM app.avatars a
          WHERE (a.user_id = r.reported))) AS reported_has_avatar,
    ( SELECT count(*) AS count
           FROM app.user_reports o
          WHERE (o.reported = r.reported)) AS reports_about_user,
    r.reporter AS reporter_user_id,
    ( SELECT count(*) AS count
           FROM app.blocks b
          WHERE (b.blocked = r.reported)) AS times_blocked
   FROM (app.user_reports r
     JOIN app.users u ON ((u.id = r.reported)));
ALTER TABLE report.user_reports OWNER TO focus_owner;
ALTER TABLE ONLY app.active_users_per_day
    ADD CONSTRAINT active_users_per_day_pkey PRIMARY KEY (day, shard);
ALTER TABLE ONLY app.asset_settings
    ADD CONSTRAINT asset_settings_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.assets
    ADD CONSTRAINT assets_pkey PRIMARY KEY (key);
ALTER TABLE ONLY app.auth_settings
    ADD CONSTRAINT auth_settings_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.auth_tokens
    ADD CONSTRAINT auth_tokens_id_key UNIQUE (id);
ALTER TABLE ONLY app.auth_tokens
    ADD CONSTRAINT auth_tokens_pkey PRIMARY KEY (digest);
ALTER TABLE ONLY app.avatars
    ADD CONSTRAINT avatars_pkey PRIMARY KEY (user_id);
ALTER TABLE ONLY app.blocks
    ADD CONSTRAINT blocks_pkey PRIMARY KEY (blocker, blocked);
ALTER TABLE ONLY app.catalog_version
    ADD CONSTRAINT catalog_version_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.coin_ledger
    ADD CONSTRAINT coin_ledger_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.daily_minutes_counts
    ADD CONSTRAINT daily_minutes_counts_pkey PRIMARY KEY (day, minutes, shard);
ALTER TABLE ONLY app.daily_minutes
    ADD CONSTRAINT daily_minutes_pkey PRIMARY KEY (user_id, day);
ALTER TABLE ONLY app.economy_settings
    ADD CONSTRAINT economy_settings_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.event_settings
    ADD CONSTRAINT event_settings_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.focus_sessions
    ADD CONSTRAINT focus_sessions_no_overlap EXCLUDE USING gist (user_id WITH =, occupies WITH &&);
ALTER TABLE ONLY app.focus_sessions
    ADD CONSTRAINT focus_sessions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.friendship_events
    ADD CONSTRAINT friendship_events_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.friendships
    ADD CONSTRAINT friendships_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.friendships
    ADD CONSTRAINT friendships_user_low_user_high_key UNIQUE (user_low, user_high);
ALTER TABLE ONLY app.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (scope, key);
ALTER TABLE ONLY app.idempotency_settings
    ADD CONSTRAINT idempotency_settings_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.ledger_day_totals
    ADD CONSTRAINT ledger_day_totals_pkey PRIMARY KEY (day, shard);
ALTER TABLE ONLY app.login_addresses
    ADD CONSTRAINT login_addresses_pkey PRIMARY KEY (user_id, client_ip);
ALTER TABLE ONLY app.mindfulness_tips
    ADD CONSTRAINT mindfulness_tips_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.mindfulness_tips
    ADD CONSTRAINT mindfulness_tips_rating_level_title_key UNIQUE (rating_level, title);
ALTER TABLE ONLY app.outgoing_mail
    ADD CONSTRAINT outgoing_mail_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.password_resets
    ADD CONSTRAINT password_resets_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);
ALTER TABLE ONLY app.session_day_totals
    ADD CONSTRAINT session_day_totals_pkey PRIMARY KEY (day, source, shard);
ALTER TABLE ONLY app.session_user_days
    ADD CONSTRAINT session_user_days_pkey PRIMARY KEY (user_id, day);
ALTER TABLE ONLY app.shop_items
    ADD CONSTRAINT shop_items_id_kind_key UNIQUE (id, kind);
ALTER TABLE ONLY app.shop_items
    ADD CONSTRAINT shop_items_kind_name_key UNIQUE (kind, name);
ALTER TABLE ONLY app.shop_items
    ADD CONSTRAINT shop_items_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.social_settings
    ADD CONSTRAINT social_settings_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.tip_views
    ADD CONSTRAINT tip_views_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.tips_version
    ADD CONSTRAINT tips_version_pkey PRIMARY KEY (singleton);
ALTER TABLE ONLY app.user_items
    ADD CONSTRAINT user_items_pkey PRIMARY KEY (user_id, item_id);
ALTER TABLE ONLY app.user_reports
    ADD CONSTRAINT user_reports_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.user_selections
    ADD CONSTRAINT user_selections_pkey PRIMARY KEY (user_id, kind);
ALTER TABLE ONLY app.users
    ADD CONSTRAINT users_email_key UNIQUE (email);
ALTER TABLE ONLY app.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);
ALTER TABLE ONLY app.weekly_minutes_counts
    ADD CONSTRAINT weekly_minutes_counts_pkey PRIMARY KEY (week, minutes, shard);
ALTER TABLE ONLY app.weekly_minutes
    ADD CONSTRAINT weekly_minutes_pkey PRIMARY KEY (user_id, week);
CREATE INDEX auth_tokens_user_id ON app.auth_tokens USING btree (user_id);
CREATE INDEX blocks_blocked ON app.blocks USING btree (blocked);
CREATE UNIQUE INDEX coin_ledger_one_earning_per_session ON app.coin_ledger USING btree (session_id) WHERE (entry = 'earn'::text);
CREATE INDEX coin_ledger_time ON app.coin_ledger USING btree (created_at);
CREATE INDEX coin_ledger_user_time ON app.coin_ledger USING btree (user_id, created_at);
CREATE INDEX daily_minutes_top ON app.daily_minutes USING btree (day, minutes DESC, user_id);
CREATE INDEX events_broadcast ON app.events USING btree (id) WHERE (user_id IS NULL);
CREATE INDEX events_created_at ON app.events USING btree (created_at);
CREATE INDEX events_user_id ON app.events USING btree (user_id, id) WHERE (user_id IS NOT NULL);
CREATE INDEX focus_sessions_end ON app.focus_sessions USING btree (ended_at);
CREATE INDEX focus_sessions_user_end ON app.focus_sessions USING btree (user_id, ended_at);
CREATE INDEX friend_request_attempts_user_time ON app.friend_request_attempts USING btree (user_id, attempted_at);
CREATE INDEX friendship_events_day ON app.friendship_events USING btree ((((created_at AT TIME ZONE 'UTC'::text))::date));
CREATE INDEX friendship_events_pair ON app.friendship_events USING btree (user_low, user_high);
CREATE INDEX friendship_events_time ON app.friendship_events USING btree (created_at);
CREATE INDEX friendships_pending_by ON app.friendships USING btree (requested_by) WHERE (status = 'pending'::text);
CREATE INDEX friendships_user_high ON app.friendships USING btree (user_high);
CREATE INDEX idempotency_keys_created_at ON app.idempotency_keys USING btree (created_at);
CREATE INDEX login_failures_email_address_time ON app.login_failures USING btree (email, client_ip, failed_at);
CREATE INDEX login_failures_email_time ON app.login_failures USING btree (email, failed_at);
CREATE INDEX outgoing_mail_recipient ON app.outgoing_mail USING btree (recipient);
CREATE INDEX outgoing_mail_unsent ON app.outgoing_mail USING btree (id) WHERE (sent_at IS NULL);
CREATE INDEX password_resets_user ON app.password_resets USING btree (user_id, created_at);
CREATE UNIQUE INDEX shop_items_one_starter_per_kind ON app.shop_items USING btree (kind) WHERE is_starter;
CREATE INDEX tip_views_time ON app.tip_views USING btree (shown_at);
CREATE INDEX tip_views_user_tip ON app.tip_views USING btree (user_id, tip_id, shown_at);
CREATE INDEX user_reports_reported ON app.user_reports USING btree (reported, created_at);
CREATE INDEX user_reports_time ON app.user_reports USING btree (created_at);
CREATE INDEX weekly_minutes_top ON app.weekly_minutes USING btree (week, minutes DESC, user_id);
CREATE OR REPLACE VIEW report.sales_per_item AS
 SELECT i.id AS item_id,
    i.kind,
    i.name,
    i.price,
    i.active,
    count(c.id) AS sales,
    COALESCE((- sum(c.amount)), (0)::bigint) AS coins,
    count(DISTINCT c.user_id) AS buyers,
    ( SELECT count(*) AS count
           FROM app.user_items o
          WHERE (o.item_id = i.id)) AS owners
   FROM (app.shop_items i
     LEFT JOIN app.coin_ledger c ON (((c.item_id = i.id) AND (c.entry = 'spend'::text))))
  GROUP BY i.id;
CREATE TRIGGER avatars_events AFTER INSERT OR DELETE OR UPDATE ON app.avatars FOR EACH ROW EXECUTE FUNCTION app.tell_friends_of_row();
CREATE TRIGGER coin_ledger_append_only BEFORE DELETE OR UPDATE ON app.coin_ledger FOR EACH STATEMENT EXECUTE FUNCTION app.forbid_change();
CREATE TRIGGER coin_ledger_apply AFTER INSERT ON app.coin_ledger FOR EACH ROW EXECUTE FUNCTION app.apply_ledger_entry();
CREATE CONSTRAINT TRIGGER coin_ledger_utc_day_totals AFTER INSERT ON app.coin_ledger DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION app.coin_ledger_day_totals();
CREATE CONSTRAINT TRIGGER daily_minutes_count AFTER INSERT OR DELETE OR UPDATE ON app.daily_minutes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION app.daily_minutes_count();
CREATE TRIGGER events_append_only BEFORE DELETE OR UPDATE OR TRUNCATE ON app.events FOR EACH STATEMENT EXECUTE FUNCTION app.events_append_only();
CREATE TRIGGER events_commit_order BEFORE INSERT ON app.events FOR EACH STATEMENT EXECUTE FUNCTION app.events_commit_order();
CREATE TRIGGER events_notify AFTER INSERT ON app.events FOR EACH ROW EXECUTE FUNCTION app.events_notify();
CREATE TRIGGER focus_sessions_events AFTER INSERT OR DELETE OR UPDATE ON app.focus_sessions FOR EACH ROW EXECUTE FUNCTION app.focus_sessions_events();
CREATE TRIGGER focus_sessions_rollup AFTER INSERT OR DELETE OR UPDATE OF user_id, ended_at, minutes ON app.focus_sessions FOR EACH ROW EXECUTE FUNCTION app.focus_sessions_rollup();
CREATE CONSTRAINT TRIGGER focus_sessions_utc_day_totals AFTER INSERT OR DELETE OR UPDATE OF user_id, source, ended_at, minutes, coins_earned ON app.focus_sessions DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION app.focus_sessions_day_totals();
CREATE TRIGGER friendship_events_append_only BEFORE DELETE OR UPDATE ON app.friendship_events FOR EACH STATEMENT EXECUTE FUNCTION app.forbid_change();
CREATE TRIGGER friendship_events_events AFTER INSERT ON app.friendship_events FOR EACH ROW EXECUTE FUNCTION app.friendship_events_events();
CREATE TRIGGER mindfulness_tips_bump_version AFTER INSERT OR DELETE OR UPDATE ON app.mindfulness_tips FOR EACH ROW EXECUTE FUNCTION app.bump_tips_version();
CREATE TRIGGER mindfulness_tips_deleted_events AFTER DELETE ON app.mindfulness_tips REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app.announce_version('tips.changed');
CREATE TRIGGER mindfulness_tips_inserted_events AFTER INSERT ON app.mindfulness_tips REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app.announce_version('tips.changed');
CREATE TRIGGER mindfulness_tips_updated_events AFTER UPDATE ON app.mindfulness_tips REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app.announce_version('tips.changed');
CREATE TRIGGER shop_items_bump_version AFTER INSERT OR DELETE OR UPDATE ON app.shop_items FOR EACH ROW EXECUTE FUNCTION app.bump_catalog_version();
CREATE TRIGGER shop_items_deleted_events AFTER DELETE ON app.shop_items REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app.announce_version('catalog.changed');
CREATE TRIGGER shop_items_inserted_events AFTER INSERT ON app.shop_items REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app.announce_version('catalog.changed');
CREATE TRIGGER shop_items_updated_events AFTER UPDATE ON app.shop_items REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app.announce_version('catalog.changed');
CREATE TRIGGER user_selections_change_events AFTER UPDATE ON app.user_selections FOR EACH ROW WHEN ((new.item_id IS DISTINCT FROM old.item_id)) EXECUTE FUNCTION app.tell_friends_of_row();
CREATE TRIGGER user_selections_events AFTER INSERT OR DELETE ON app.user_selections FOR EACH ROW EXECUTE FUNCTION app.tell_friends_of_row();
CREATE TRIGGER users_events AFTER UPDATE ON app.users FOR EACH ROW WHEN (((new.display_name IS DISTINCT FROM old.display_name) OR (new.balance IS DISTINCT FROM old.balance))) EXECUTE FUNCTION app.users_events();
CREATE TRIGGER users_rollup AFTER UPDATE OF time_zone, deleted_at ON app.users FOR EACH ROW WHEN (((new.time_zone IS DISTINCT FROM old.time_zone) OR (new.deleted_at IS DISTINCT FROM old.deleted_at))) EXECUTE FUNCTION app.users_rollup();
CREATE CONSTRAINT TRIGGER weekly_minutes_count AFTER INSERT OR DELETE OR UPDATE ON app.weekly_minutes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION app.weekly_minutes_count();
ALTER TABLE ONLY app.auth_tokens
    ADD CONSTRAINT auth_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.avatars
    ADD CONSTRAINT avatars_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.blocks
    ADD CONSTRAINT blocks_blocked_fkey FOREIGN KEY (blocked) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.blocks
    ADD CONSTRAINT blocks_blocker_fkey FOREIGN KEY (blocker) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.coin_ledger
    ADD CONSTRAINT coin_ledger_item_id_fkey FOREIGN KEY (item_id) REFERENCES app.shop_items(id);
ALTER TABLE ONLY app.coin_ledger
    ADD CONSTRAINT coin_ledger_session_id_fkey FOREIGN KEY (session_id) REFERENCES app.focus_sessions(id);
ALTER TABLE ONLY app.coin_ledger
    ADD CONSTRAINT coin_ledger_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.daily_minutes
    ADD CONSTRAINT daily_minutes_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.focus_sessions
    ADD CONSTRAINT focus_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.friendships
    ADD CONSTRAINT friendships_user_high_fkey FOREIGN KEY (user_high) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.friendships
    ADD CONSTRAINT friendships_user_low_fkey FOREIGN KEY (user_low) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.login_addresses
    ADD CONSTRAINT login_addresses_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.password_resets
    ADD CONSTRAINT password_resets_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.tip_views
    ADD CONSTRAINT tip_views_session_id_fkey FOREIGN KEY (session_id) REFERENCES app.focus_sessions(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.tip_views
    ADD CONSTRAINT tip_views_tip_id_fkey FOREIGN KEY (tip_id) REFERENCES app.mindfulness_tips(id);
ALTER TABLE ONLY app.tip_views
    ADD CONSTRAINT tip_views_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.user_items
    ADD CONSTRAINT user_items_item_id_fkey FOREIGN KEY (item_id) REFERENCES app.shop_items(id);
ALTER TABLE ONLY app.user_items
    ADD CONSTRAINT user_items_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.user_reports
    ADD CONSTRAINT user_reports_reported_fkey FOREIGN KEY (reported) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.user_reports
    ADD CONSTRAINT user_reports_reporter_fkey FOREIGN KEY (reporter) REFERENCES app.users(id) ON DELETE CASCADE;
ALTER TABLE ONLY app.user_selections
    ADD CONSTRAINT user_selections_item_id_kind_fkey FOREIGN KEY (item_id, kind) REFERENCES app.shop_items(id, kind);
ALTER TABLE ONLY app.user_selections
    ADD CONSTRAINT user_selections_user_id_item_id_fkey FOREIGN KEY (user_id, item_id) REFERENCES app.user_items(user_id, item_id) ON DELETE CASCADE;
ALTER TABLE ONLY app.weekly_minutes
    ADD CONSTRAINT weekly_minutes_user_id_fkey FOREIGN KEY (user_id) REFERENCES app.users(id) ON DELETE CASCADE;
GRANT USAGE ON SCHEMA api TO focus_api;
REVOKE USAGE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA report TO focus_report;
REVOKE ALL ON FUNCTION api.accept_pair(pair app.friendships, actor uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.asset_url(key text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.assets_publish(base_url text, manifest jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.assets_publish(base_url text, manifest jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.auth_login(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.auth_login(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.auth_logout(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.auth_logout(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.auth_password_reset_confirm(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.auth_password_reset_confirm(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.auth_password_reset_create(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.auth_password_reset_create(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.auth_register(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.auth_register(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.authenticate(token text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.avatar_version(updated_at timestamp with time zone) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.board_top(period text, key date, entries integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.boolean_field(body jsonb, field text, required boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.card_json(id uuid, display_name text, has_avatar boolean, avatar_updated_at timestamp with time zone) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.check_password(account app.users, password text, client_ip inet) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.choice(value text, field text, choices text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.client_address(params jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.display_name_field(body jsonb, required boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.email_field(body jsonb, field text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.end_request(token text, params jsonb, side text, action text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.event_cursor(params jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.events_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.events_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.events_prune() FROM PUBLIC;
GRANT ALL ON FUNCTION api.events_prune() TO focus_api;
REVOKE ALL ON FUNCTION api.events_stream_open(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.events_stream_open(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.fail(status integer, code text, message text, extra jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.fail_field(field text, problem text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.failed_attempts(email text, action text, client_ip inet) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.focus_sessions_abandon(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_abandon(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.focus_sessions_batch_create(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_batch_create(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.focus_sessions_create(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_create(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.focus_sessions_current_get(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_current_get(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.focus_sessions_finish(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_finish(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.focus_sessions_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.focus_sessions_rate(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_rate(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.focus_sessions_start(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.focus_sessions_start(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.friend_json(user_id uuid, befriended_at timestamp with time zone) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.friend_requests_accept(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.friend_requests_accept(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.friend_requests_create(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.friend_requests_create(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.friend_requests_decline(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.friend_requests_decline(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.friend_requests_delete(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.friend_requests_delete(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.friend_requests_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.friend_requests_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.friends_delete(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.friends_delete(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.friends_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.friends_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.give_starters(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.hash_password(password text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.idempotent(endpoint text, token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.idempotent(endpoint text, token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.integer_field(body jsonb, field text, minimum integer, maximum integer, required boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.integer_param(params jsonb, name text, minimum integer, maximum integer, fallback integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.is_uuid(value text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.iso(value timestamp with time zone) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.issue_token(user_id uuid, params jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.item_json(item app.shop_items) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.json_field(body jsonb, field text, json_type text, required boolean, expected text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.kind_param(params jsonb, required boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.known_ids(body jsonb, field text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.leaderboards_get(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.leaderboards_get(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.live_end(session app.focus_sessions) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.local_date(time_zone text, at timestamp with time zone) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.local_period_start(time_zone text, at timestamp with time zone, period text, shift integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.lock_account(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.lock_pair(a uuid, b uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.lock_user(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.me_avatar_delete(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_avatar_delete(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_avatar_update(token text, params jsonb, body bytea) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_avatar_update(token text, params jsonb, body bytea) TO focus_api;
REVOKE ALL ON FUNCTION api.me_blocks_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_blocks_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_delete(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_delete(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_email_update(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_email_update(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_export_get(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_export_get(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_get(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_get(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_items_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_items_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_password_update(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_password_update(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_selected_update(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_selected_update(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_stats_get(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_stats_get(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_tokens_delete(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_tokens_delete(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_tokens_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_tokens_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.me_update(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.me_update(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.mindfulness_tips_sync(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.mindfulness_tips_sync(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.newest_event_id() FROM PUBLIC;
REVOKE ALL ON FUNCTION api.ok(body jsonb, status integer, etag text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.only_keys(body jsonb, allowed text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.other_user(pair app.friendships, me uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.other_user_param(params jsonb, user_id uuid, self_code text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.own_session(user_id uuid, session_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.pair(a uuid, b uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.parse_body(body text) FROM PUBLIC;
GRANT ALL ON FUNCTION api.parse_body(body text) TO focus_api;
REVOKE ALL ON FUNCTION api.parse_image(body text) FROM PUBLIC;
GRANT ALL ON FUNCTION api.parse_image(body text) TO focus_api;
REVOKE ALL ON FUNCTION api.password_field(body jsonb, field text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.pay_session(session_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.pending_request(request_id uuid, user_id uuid, side text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.problem(status integer, code text, message text, extra jsonb, retry_after integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.problem_json(status integer, code text, message text, extra text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.profile(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.ready() FROM PUBLIC;
GRANT ALL ON FUNCTION api.ready() TO focus_api;
REVOKE ALL ON FUNCTION api.record_friendship_event(pair app.friendships, actor uuid, action text) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.report_json(report app.user_reports) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.rollup_minutes(user_id uuid, period text, key date) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.secret_fields() FROM PUBLIC;
REVOKE ALL ON FUNCTION api.selected_json(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.selections_of(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.session_json(session app.focus_sessions) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.session_reply(session_id uuid, status integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.shop_items_list(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.shop_items_list(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.shop_items_sync(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.shop_items_sync(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.shop_purchases_create(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.shop_purchases_create(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.sync_difference(known uuid[], active jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.text_field(body jsonb, field text, required boolean, max_length integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.time_field(body jsonb, field text, required boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.tip_json(tip app.mindfulness_tips) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.today_minutes(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.token_json(token app.auth_tokens, current_digest bytea) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.touch_token(token_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.user_card(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.user_time_zone(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION api.users_avatar_get(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.users_avatar_get(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.users_block_create(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.users_block_create(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.users_block_delete(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.users_block_delete(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.users_get(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.users_get(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.users_report_create(token text, params jsonb, body jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION api.users_report_create(token text, params jsonb, body jsonb) TO focus_api;
REVOKE ALL ON FUNCTION api.uuid_field(body jsonb, field text, required boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.add_rollup_minutes(user_id uuid, ended_at timestamp with time zone, minutes integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.add_user_day(user_id uuid, day date, sessions integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.announce_version() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.apply_ledger_entry() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.avatar_max_bytes() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.bump_catalog_version() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.bump_tips_version() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.coin_ledger_day_totals() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.counter_shard(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.daily_minutes_count() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.events_append_only() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.events_commit_order() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.events_notify() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.focus_sessions_day_totals() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.focus_sessions_events() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.focus_sessions_rollup() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.forbid_change() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.friendship_events_events() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.grant_coins(user_id uuid, coins integer, reason text) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.prune_events() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.prune_idempotency_keys() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.rebuild_rollup(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.take_outgoing_mail(batch integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.take_session_total(session app.focus_sessions) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.tell_friends(user_id uuid) FROM PUBLIC;
REVOKE ALL ON FUNCTION app.tell_friends_of_row() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.users_events() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.users_rollup() FROM PUBLIC;
REVOKE ALL ON FUNCTION app.weekly_minutes_count() FROM PUBLIC;
GRANT SELECT ON TABLE report.coin_economy_per_day TO focus_report;
GRANT SELECT ON TABLE report.counter_reconciliation TO focus_report;
GRANT SELECT ON TABLE report.daily_active_users TO focus_report;
GRANT SELECT ON TABLE report.focused_minutes_per_day TO focus_report;
GRANT SELECT ON TABLE report.friendship_funnel_per_day TO focus_report;
GRANT SELECT ON TABLE report.ledger_reconciliation TO focus_report;
GRANT SELECT ON TABLE report.sales_per_item TO focus_report;
GRANT SELECT ON TABLE report.sessions_per_day_by_path TO focus_report;
GRANT SELECT ON TABLE report.tips_shown_per_level TO focus_report;
GRANT SELECT ON TABLE report.user_reports TO focus_report;
ALTER DEFAULT PRIVILEGES FOR ROLE focus_owner REVOKE ALL ON FUNCTIONS  FROM PUBLIC;
