-- api push: push tokens (GET, PUT and DELETE /me/push-tokens) and what the push sender
-- (`focus-island push`, Sources/FocusIsland/Push/) calls to drain app.push_outbox.

-- PushToken = {token, platform, environment, app_version, locale, created_at}
create function api.push_token_json(push_token app.push_tokens)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('token', push_token.token, 'platform', push_token.platform,
                              'environment', push_token.environment, 'app_version', push_token.app_version,
                              'locale', push_token.locale, 'created_at', api.iso(push_token.created_at))
$$;

-- PUT /me/push-tokens {token, platform: apns|fcm, environment: sandbox|production, app_version?, locale?}
-- Guarantees: one row per token. A token registered again updates its row and ties it to the
-- calling sign-in; a token another account registered moves to the caller, and the pushes
-- queued for the other account through it are deleted. The calling sign-in then holds at most
-- app.push_limits.per_sign_in tokens and the account per_account: the least recently
-- registered beyond are deleted. An APNs token is hex (stored in lower case); 400 invalid_field
-- for anything else, and nothing changes.
create function api.me_push_tokens_update(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_push_tokens_update.token);
    v_body jsonb := api.only_keys(me_push_tokens_update.body, array['token', 'platform', 'environment', 'app_version', 'locale']);
    v_platform text := api.choice(api.text_field(v_body, 'platform', required => false), 'platform', array['apns', 'fcm']);
    v_environment text := api.choice(api.text_field(v_body, 'environment', required => false), 'environment',
                                     array['sandbox', 'production']);
    v_push_token text := api.text_field(v_body, 'token', max_length => 512);
    v_app_version text := nullif(btrim(api.text_field(v_body, 'app_version', required => false, max_length => 40)), '');
    v_locale text := nullif(api.text_field(v_body, 'locale', required => false, max_length => 35), '');
    v_auth_token_id uuid;
    v_previous uuid;
    v_limits app.push_limits;
    v_row app.push_tokens;
begin
    if v_platform = 'apns' then
        v_push_token := lower(v_push_token);
        if v_push_token !~ '^[0-9a-f]{64,200}$' then
            perform api.fail_field('token', 'must be the APNs device token in hexadecimal (64 digits or more).');
        end if;
    elsif length(v_push_token) < 32 or v_push_token !~ '^[A-Za-z0-9_:.-]+$' then
        perform api.fail_field('token', 'must be the FCM registration token (32 to 512 letters, digits and _:.-).');
    end if;
    if v_locale !~ '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$' then
        perform api.fail_field('locale', 'must be a language tag, like es or pt-BR.');
    end if;
    perform api.lock_user(v_user_id);
    select t.id into v_auth_token_id from app.auth_tokens t
    where t.digest = sha256(convert_to(me_push_tokens_update.token, 'UTF8'));
    select p.user_id into v_previous from app.push_tokens p where p.token = v_push_token for update;
    if v_previous is distinct from v_user_id then
        delete from app.push_outbox o where o.token = v_push_token;
    end if;

    insert into app.push_tokens as p (token, user_id, auth_token_id, platform, environment, app_version, locale, updated_at)
    values (v_push_token, v_user_id, v_auth_token_id, v_platform, v_environment, v_app_version, v_locale, clock_timestamp())
    on conflict on constraint push_tokens_pkey do update
    set user_id = excluded.user_id, auth_token_id = excluded.auth_token_id, platform = excluded.platform,
        environment = excluded.environment, app_version = excluded.app_version, locale = excluded.locale,
        created_at = case when p.user_id = excluded.user_id then p.created_at else now() end, updated_at = clock_timestamp()
    returning * into v_row;

    select * into v_limits from app.push_limits;
    delete from app.push_tokens p
    where p.token in (select q.token from app.push_tokens q where q.auth_token_id = v_auth_token_id
                      order by q.token = v_push_token desc, q.updated_at desc, q.token offset v_limits.per_sign_in);
    delete from app.push_tokens p
    where p.token in (select q.token from app.push_tokens q where q.user_id = v_user_id
                      order by q.token = v_push_token desc, q.updated_at desc, q.token offset v_limits.per_account);
    return api.ok(api.push_token_json(v_row));
end
$$;
grant execute on function api.me_push_tokens_update(text, jsonb, jsonb) to focus_api;
comment on function api.me_push_tokens_update(text, jsonb, jsonb) is
    'PUT /me/push-tokens: registers (or re-registers) a phone''s push token for the calling sign-in; one row per token, '
    'moved from another account if it was there; at most app.push_limits.per_sign_in per sign-in and per_account per account.';
insert into api.endpoints (method, path, function, body, errors)
values ('PUT', '/me/push-tokens', 'api.me_push_tokens_update', 'json', '{account_suspended, invalid_field}');

-- PushTokenEntry = {token, token_end, platform, environment, app_version, locale, created_at,
-- last_used_at, sign_in_id, current}. The whole token only for the calling sign-in's own (the
-- phone asking already holds it); another sign-in's is null, told apart by its last 6
-- characters and its sign-in (sign_in_id: GET /me/tokens' id, whose DELETE ends the sign-in and
-- its push tokens with it), so no list hands one phone's token to another. last_used_at: when
-- the phone last registered it (apps register at every launch; 2026-12-06).
-- GET /me/push-tokens: the caller's push tokens, most recently registered first.
create function api.me_push_tokens_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_push_tokens_list.token);
    v_sign_in uuid;
begin
    select t.id into v_sign_in from app.auth_tokens t
    where t.digest = sha256(convert_to(me_push_tokens_list.token, 'UTF8'));
    return api.ok(jsonb_build_object('push_tokens', coalesce(
        (select jsonb_agg(jsonb_build_object(
                    'token', case when p.auth_token_id = v_sign_in then p.token end, 'token_end', right(p.token, 6),
                    'platform', p.platform, 'environment', p.environment, 'app_version', p.app_version,
                    'locale', p.locale, 'created_at', api.iso(p.created_at), 'last_used_at', api.iso(p.updated_at),
                    'sign_in_id', p.auth_token_id, 'current', p.auth_token_id = v_sign_in)
                  order by p.updated_at desc, p.token)
         from app.push_tokens p
         where p.user_id = v_user_id), '[]')));
end
$$;
grant execute on function api.me_push_tokens_list(text, jsonb, jsonb) to focus_api;
comment on function api.me_push_tokens_list(text, jsonb, jsonb) is
    'GET /me/push-tokens: the caller''s push tokens, each with its platform and times; the whole token only for the '
    'calling sign-in''s own.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/push-tokens', 'api.me_push_tokens_list', '{account_suspended}');

-- DELETE /me/push-tokens/{token}: the caller's token and its queued pushes are deleted. Another
-- account's token and an unknown one are one 404 push_token_not_found.
create function api.me_push_tokens_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_push_tokens_delete.token);
    v_push_token text := api.text_field(me_push_tokens_delete.params, 'token', max_length => 512);
begin
    delete from app.push_tokens p
    where p.user_id = v_user_id and (p.token = v_push_token or (p.platform = 'apns' and p.token = lower(v_push_token)));
    if not found then
        perform api.fail(404, 'push_token_not_found', 'You have no such push token.');
    end if;
    return api.ok(null);
end
$$;
grant execute on function api.me_push_tokens_delete(text, jsonb, jsonb) to focus_api;
comment on function api.me_push_tokens_delete(text, jsonb, jsonb) is
    'DELETE /me/push-tokens/{token}: deletes one of the caller''s push tokens; anyone else''s is 404 push_token_not_found.';
insert into api.endpoints (method, path, function, status, errors, parameters)
values ('DELETE', '/me/push-tokens/{token}', 'api.me_push_tokens_delete', 204,
        '{account_suspended, invalid_field, push_token_not_found}',
        '{"token": {"schema": {"type": "string", "minLength": 1, "maxLength": 512, "pattern": "^[A-Za-z0-9_:.-]+$"}}}');

-- For the push sender: up to `batch` due outbox rows (send_after passed) for tokens of
-- `platforms` (the ones the sender is configured for), oldest first, locked
-- FOR UPDATE SKIP LOCKED until the caller's transaction ends, so senders running at once never
-- claim one row twice. Each comes as the message to send: PushMessage = {id, token, platform,
-- environment, locale, type, loc_key, loc_args: [the actor's display name now] (none when the
-- row names no actor: a streak or goal reminder), data: {the event's ids, type, event_id} (a
-- reminder's: its ids, type, reminder_id; app.reminders_deliver), attempts}. No address is ever
-- in it.
create function api.push_claim(batch integer, platforms text[])
returns jsonb
language sql volatile security definer set search_path = public, pg_temp
as $$
    with due as (
        select o.id from app.push_outbox o
        join app.push_tokens p on p.token = o.token
        where o.send_after <= now() and p.platform = any (push_claim.platforms)
        order by o.send_after, o.id
        limit least(greatest(push_claim.batch, 1), 500)
        for update of o skip locked
    )
    select coalesce(jsonb_agg(jsonb_build_object(
               'id', o.id, 'token', o.token, 'platform', p.platform, 'environment', p.environment, 'locale', p.locale,
               'type', o.type, 'loc_key', coalesce(t.loc_key, rt.loc_key),
               'loc_args', case when o.data ? 'user_id' then jsonb_build_array(coalesce(u.display_name, 'Deleted user'))
                                else '[]' end,
               'data', o.data || jsonb_strip_nulls(jsonb_build_object('type', o.type, 'event_id', o.event_id,
                                                                      'reminder_id', o.reminder_id)),
               'attempts', o.attempts)
               order by o.id), '[]')
    from due
    join app.push_outbox o on o.id = due.id
    join app.push_tokens p on p.token = o.token
    left join app.push_types t on t.type = o.type
    left join app.reminder_types rt on rt.type = o.type
    left join app.users u on u.id = (o.data ->> 'user_id')::uuid
$$;
grant execute on function api.push_claim(integer, text[]) to focus_api;
comment on function api.push_claim(integer, text[]) is
    'Not an endpoint: `focus-island push` claims due outbox rows (FOR UPDATE SKIP LOCKED) in a transaction it ends '
    'with api.push_settle; each row comes as the message to send, with ids and a localisation key, never an address.';

-- The sender's results as rows (api.push_settle).
create function api.push_results(results jsonb)
returns table (id bigint, outcome text, retry_after integer, error text)
language sql immutable
as $$ select * from jsonb_to_recordset(push_results.results) as r(id bigint, outcome text, retry_after integer, error text) $$;

-- For the push sender, in the transaction of its api.push_claim: each result
-- {id, outcome: sent|dead|retry|failed, retry_after?: seconds, error?: text}. sent and failed
-- (a refusal no retry can mend) delete the row; dead deletes the push token (APNs 410,
-- BadDeviceToken, FCM UNREGISTERED), its queued rows with it; retry (429, 5xx, no answer)
-- counts an attempt and waits max(retry_after, 2^attempts seconds), at most an hour, or
-- deletes the row at app.push_limits.max_attempts. Answers the counts
-- {sent, dead, retried, dropped, failed}.
create function api.push_settle(results jsonb)
returns jsonb
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_max integer := (select l.max_attempts from app.push_limits l);
    v_sent integer;
    v_dead integer;
    v_failed integer;
    v_retried integer;
    v_dropped integer;
begin
    if exists (select from api.push_results(push_settle.results) r
               where r.outcome is null or r.outcome not in ('sent', 'dead', 'retry', 'failed')) then
        raise exception 'api.push_settle: an outcome is not sent, dead, retry or failed';
    end if;

    with gone as (delete from app.push_outbox o using api.push_results(push_settle.results) r
                  where o.id = r.id and r.outcome = 'sent' returning o.id)
    select count(*)::integer into v_sent from gone;
    with gone as (delete from app.push_outbox o using api.push_results(push_settle.results) r
                  where o.id = r.id and r.outcome = 'failed' returning o.id)
    select count(*)::integer into v_failed from gone;
    with gone as (delete from app.push_tokens p
                  where p.token in (select o.token from app.push_outbox o
                                    join api.push_results(push_settle.results) r on r.id = o.id
                                    where r.outcome = 'dead') returning p.token)
    select count(*)::integer into v_dead from gone;
    with gone as (delete from app.push_outbox o using api.push_results(push_settle.results) r
                  where o.id = r.id and r.outcome = 'retry' and o.attempts + 1 >= v_max returning o.id)
    select count(*)::integer into v_dropped from gone;
    with moved as (
        update app.push_outbox o
        set attempts = o.attempts + 1, last_error = left(r.error, 200),
            send_after = now() + make_interval(secs => least(greatest(coalesce(r.retry_after, 0), 2 ^ (o.attempts + 1)), 3600))
        from api.push_results(push_settle.results) r
        where o.id = r.id and r.outcome = 'retry'
        returning o.id)
    select count(*)::integer into v_retried from moved;
    return jsonb_build_object('sent', v_sent, 'dead', v_dead, 'retried', v_retried, 'dropped', v_dropped, 'failed', v_failed);
end
$$;
grant execute on function api.push_settle(jsonb) to focus_api;
comment on function api.push_settle(jsonb) is
    'Not an endpoint: `focus-island push` records what APNs and FCM answered for the rows it claimed: sent rows go, '
    'dead tokens go, 429 and 5xx wait (backoff, Retry-After) up to app.push_limits.max_attempts.';
