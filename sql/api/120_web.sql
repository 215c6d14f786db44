-- api web: what the web pages call (web/, docs/web.md). Each page route runs one of these and
-- the server renders its answer into a template; the rules stay here. Deleting an account
-- without the app (/account/delete: a code mailed to the address, the reset's rules), and the
-- moderators' console (/moderation: a sign-in that makes a cookie session with a CSRF token,
-- the queue, a user's page, the audit log, the actions of sql/api/110_moderation.sql).

-- POST /account/delete {email} (public, a form)
-- Guarantees: always the same answer, known email or not (as the password reset), after the
-- same work: one insert, unless max_reset_mails requests of that email already wait for the
-- mailer (counted by the email alone, so the choice tells nothing about an account); the
-- mailer (app.take_outgoing_mail → app.send_deletion_codes) later mails a live account, at most
-- max_reset_mails codes per reset_mail_window, an 8-digit code (digest stored, reset_code_ttl,
-- single use; earlier unused codes stop working). No bound by address (docs/security.md, "Rules
-- that count by address").
create function api.account_deletion_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(account_deletion_create.body, array['email']);
    v_email text := api.email_field(v_body);
    v_limit integer := (select s.max_reset_mails from app.auth_settings s);
begin
    if (select count(*) from app.account_deletion_requests q where q.email = v_email::citext) < v_limit then
        -- The page's language (params.language, negotiated by the server from Accept-Language):
        -- the code's mail is written in it unless the person chose a locale (app.person_language).
        insert into app.account_deletion_requests (email, language)
        values (v_email, app.language_tag_canonical(account_deletion_create.params ->> 'language'));
    end if;
    return api.ok(jsonb_build_object('email', v_email));
end
$$;
grant execute on function api.account_deletion_create(text, jsonb, jsonb) to focus_api;
comment on function api.account_deletion_create(text, jsonb, jsonb) is
    'POST /account/delete (web form): always the same answer after one insert (none while max_reset_mails requests '
    'of the email wait); the mailer later mails a known live email a one-time deletion code under the reset''s throttle.';

-- POST /account/delete/confirm {email, code} (public, a form)
-- Guarantees: the reset's rules for the code: a wrong, expired or used code (or an unknown
-- email) is one 400 invalid_deletion_code, recorded as a 'code' failure without rolling back;
-- the account's live code counts the wrong guess and stops working after max_code_attempts;
-- 429 too_many_attempts (the code not even checked) only by this address's own wrong codes of
-- any kind (reset, deletion, sign-up; api.failed_attempts): past
-- first_guess_only_after_code_failures for a second guess at the same email, past
-- max_code_failures_per_address for every guess, so at a shared address (a NAT) someone typing
-- the code of their own mail still deletes while a schoolmate guesses. A right code works once: the account becomes the tombstone DELETE /me leaves
-- (api.erase_account) and app.account_deletions records it (via web).
create function api.account_deletion_confirm(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(account_deletion_confirm.body, array['email', 'code']);
    v_email text := api.email_field(v_body);
    v_code text := btrim(api.text_field(v_body, 'code', max_length => 100));
    v_address inet := api.client_address(account_deletion_confirm.params);
    v_wait integer := api.failed_attempts(v_email, 'check', v_address, 'code');
    v_settings app.auth_settings;
    v_row app.account_deletion_codes;
begin
    if v_wait is not null then
        return api.problem(429, 'too_many_attempts', 'Too many wrong codes; wait before trying again.', retry_after => v_wait);
    end if;
    select * into v_settings from app.auth_settings;
    select c.* into v_row
    from app.account_deletion_codes c join app.users u on u.id = c.user_id
    where u.email = v_email::citext and u.deleted_at is null and c.used_at is null and c.expires_at > now()
    order by c.created_at desc limit 1
    for update of c;
    if v_row.id is null or v_row.digest <> sha256(convert_to(v_code, 'UTF8')) then
        update app.account_deletion_codes c
        set failed_attempts = c.failed_attempts + 1,
            used_at = case when c.failed_attempts + 1 >= v_settings.max_code_attempts then now() end
        where c.id = v_row.id;
        perform api.failed_attempts(v_email, 'record', v_address, 'code');
        return api.problem(400, 'invalid_deletion_code', 'The code is wrong, expired or already used.');
    end if;
    perform api.erase_account(v_row.user_id, null);
    perform api.failed_attempts(v_email, 'clear', v_address);
    insert into app.account_deletions (user_id, via, reason)
    values (v_row.user_id, 'web', 'Asked on the account deletion page; confirmed with the code mailed to the address.');
    return api.ok(jsonb_build_object('deleted', true));
end
$$;
grant execute on function api.account_deletion_confirm(text, jsonb, jsonb) to focus_api;
comment on function api.account_deletion_confirm(text, jsonb, jsonb) is
    'POST /account/delete/confirm (web form): one 400 invalid_deletion_code for wrong, expired, used codes and unknown '
    'emails (429 only for an address''s repeated or too many wrong codes); a right code deletes the account as DELETE /me '
    'does, audited.';

-- The moderator a console cookie's token belongs to: 401 as api.authenticate, 401 when the
-- token is not a console session (an app's token in a cookie is refused), 403 not_moderator
-- or account_suspended as api.authenticate_moderator; for a change (csrf not null), 403
-- csrf_failed unless it is the session's CSRF token.
create function api.console_moderator(token text, csrf text default null)
returns uuid
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_moderator uuid := api.authenticate_moderator(console_moderator.token);
    v_session app.web_sessions;
begin
    select * into v_session from app.web_sessions s where s.digest = sha256(convert_to(console_moderator.token, 'UTF8'));
    if v_session.digest is null then
        perform api.fail(401, 'unauthorized', 'Sign in to the moderation console.');
    end if;
    if console_moderator.csrf is not null and console_moderator.csrf is distinct from v_session.csrf_token then
        perform api.fail(403, 'csrf_failed', 'This form is stale or came from another site; reload the page and try again.');
    end if;
    return v_moderator;
end
$$;

-- What every console page shows of its session: the CSRF token its forms carry, the
-- moderator, when the session ends, and the language the page is shown in (2026-12-07: the
-- moderator's locale, then the page's Accept-Language, params.language; app.person_language).
create function api.console_session_json(token text, params jsonb)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object('csrf_token', s.csrf_token, 'moderator', api.user_card(t.user_id),
                                  'session_expires_at', api.iso(t.expires_at),
                                  'language', app.person_language(t.user_id, null,
                                                                  app.language_tag_canonical(console_session_json.params ->> 'language')))
        from app.web_sessions s join app.auth_tokens t on t.digest = s.digest
        where s.digest = sha256(convert_to(console_session_json.token, 'UTF8')));
end
$$;

-- A user as the console shows one: card, whether deleted, the suspension, whether a guest or
-- under the age gate without a parent's consent (2026-12-07, docs/guests.md).
create function api.console_user_json(user_id uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.user_card(u.id) || api.suspension_json(u.id)
               || jsonb_build_object('deleted', u.deleted_at is not null, 'created_at', api.iso(u.created_at),
                                     'guest', u.email is null and u.deleted_at is null,
                                     'age_restricted', app.age_restricted(u.birth_month, u.parental_consent_at))
        from app.users u where u.id = console_user_json.user_id);
end
$$;

-- A report as the console lists it: ModerationReport and whether it is open.
create function api.console_report_json(report app.user_reports)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.moderation_report_json(report) || jsonb_build_object('open', report.status = 'open'));
end
$$;

-- An audit row as the console lists it: ModerationAction with both people's cards.
create function api.console_action_json(action app.moderation_actions)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.moderation_action_json(action)
               || jsonb_build_object('moderator', api.user_card(action.moderator), 'user', api.user_card(action.user_id),
                                     'details_text', nullif(action.details, '{}')::text));
end
$$;

-- POST /moderation/sign-in {email, password} (public, a form)
-- Guarantees: exactly POST /auth/login's checks and throttle (api.auth_login: one 401
-- invalid_credentials, 429 too_many_attempts); then 403 not_moderator for an account that is
-- not one (the token just made is revoked) and 403 account_suspended for a suspended one.
-- A moderator gets {token, max_age, ...}: a token that expires after
-- web_settings.moderator_session_ttl, with a console session and its CSRF token; the server
-- puts the token in an HttpOnly cookie and never in a page.
create function api.moderation_session_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_login api.reply := api.auth_login(null, moderation_session_create.params, moderation_session_create.body);
    v_token text;
    v_digest bytea;
    v_ttl interval := (select s.moderator_session_ttl from app.web_settings s);
    v_expires_at timestamptz;
begin
    if v_login.code is not null then
        return v_login;
    end if;
    v_token := v_login.body ->> 'token';
    v_digest := sha256(convert_to(v_token, 'UTF8'));
    if not exists (select from app.moderators m where m.user_id = (v_login.body -> 'user' ->> 'id')::uuid) then
        update app.auth_tokens t set revoked_at = now() where t.digest = v_digest;
        return api.problem(403, 'not_moderator', 'Only moderators may sign in here.');
    end if;
    perform api.authenticate_moderator(v_token);  -- 403 account_suspended
    update app.auth_tokens t set expires_at = least(t.expires_at, now() + v_ttl)
    where t.digest = v_digest
    returning t.expires_at into v_expires_at;
    insert into app.web_sessions (digest, csrf_token) values (v_digest, encode(gen_random_bytes(32), 'hex'));
    return api.ok(jsonb_build_object('token', v_token, 'expires_at', api.iso(v_expires_at),
                                     'max_age', ceil(extract(epoch from v_expires_at - now()))::integer));
end
$$;
grant execute on function api.moderation_session_create(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_session_create(text, jsonb, jsonb) is
    'POST /moderation/sign-in (web form): POST /auth/login''s checks and throttle, then 403 not_moderator; a '
    'moderator gets a short-lived token for the console''s cookie, with a CSRF token.';

-- POST /moderation/sign-out {csrf_token} (a form, cookie session)
-- Guarantees: the console session's token stops working at once (as POST /auth/logout); 401
-- when the cookie holds no console session; 403 csrf_failed without the session's CSRF token.
-- A suspended moderator or one no longer listed may still sign out.
create function api.moderation_session_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(moderation_session_delete.body, array['csrf_token']);
    v_csrf text := coalesce(api.text_field(v_body, 'csrf_token', required => false), '');
    v_digest bytea := sha256(convert_to(coalesce(moderation_session_delete.token, ''), 'UTF8'));
    v_session app.web_sessions;
begin
    perform api.authenticate(moderation_session_delete.token, suspended_too => true);
    select * into v_session from app.web_sessions s where s.digest = v_digest;
    if v_session.digest is null then
        perform api.fail(401, 'unauthorized', 'Sign in to the moderation console.');
    end if;
    if v_csrf is distinct from v_session.csrf_token then
        perform api.fail(403, 'csrf_failed', 'This form is stale or came from another site; reload the page and try again.');
    end if;
    update app.auth_tokens t set revoked_at = now() where t.digest = v_digest;
    return api.ok(null);
end
$$;
grant execute on function api.moderation_session_delete(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_session_delete(text, jsonb, jsonb) is
    'POST /moderation/sign-out (web form): revokes the console session''s token; 401 without one, 403 csrf_failed.';

-- The choices of a filter as the page's <select> shows them: {value, selected}.
create function api.console_options(choices text[], chosen text)
returns jsonb
language sql immutable
as $$
    select jsonb_agg(jsonb_build_object('value', c, 'selected', c = console_options.chosen) order by o)
    from unnest(console_options.choices) with ordinality as x(c, o)
$$;

-- GET /moderation?status=open|actioned|dismissed|all&reason=<reason>|all (cookie session)
-- Guarantees: the newest 100 reports of that status (open unless given) and reason (all
-- unless given), newest first (created_at, id), with the page's session; 400 invalid_field
-- for another status or reason; 401 without a console session, 403 not_moderator.
create function api.moderation_queue_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_reasons text[] := array['all', 'spam', 'harassment', 'inappropriate_name', 'inappropriate_avatar', 'other'];
    v_statuses text[] := array['open', 'actioned', 'dismissed', 'all'];
    v_status text;
    v_reason text;
begin
    -- Who first: anyone else gets 401 or 403 whatever the parameters.
    perform api.console_moderator(moderation_queue_list.token);
    v_status := api.choice(coalesce(nullif(moderation_queue_list.params ->> 'status', ''), 'open'), 'status', v_statuses);
    v_reason := api.choice(coalesce(nullif(moderation_queue_list.params ->> 'reason', ''), 'all'), 'reason', v_reasons);
    return api.ok(api.console_session_json(moderation_queue_list.token, moderation_queue_list.params) || jsonb_build_object(
        'status', v_status, 'reason', v_reason,
        -- The stream the page's script listens on, as its endpoint declares it (web/static/live.js).
        'events', (select e.path from api.endpoints e where e.function = 'api.events_list'::regproc),
        'statuses', api.console_options(v_statuses, v_status), 'reasons', api.console_options(v_reasons, v_reason),
        'reports', coalesce((select jsonb_agg(api.console_report_json(r) order by r.created_at desc, r.id desc)
                             from (select * from app.user_reports r
                                   where (v_status = 'all' or r.status = v_status) and (v_reason = 'all' or r.reason = v_reason)
                                   order by r.created_at desc, r.id desc
                                   limit 100) r), '[]')));
end
$$;
grant execute on function api.moderation_queue_list(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_queue_list(text, jsonb, jsonb) is
    'GET /moderation (web page): the newest 100 reports of a status and reason, newest first; 401 without a console '
    'session, 403 not_moderator.';

-- GET /moderation/people/{id} (cookie session)
-- Guarantees: the user (card, suspension, deleted or not), the avatar as a data: URL, every
-- display name held since 0025 (newest first), the newest 100 reports against and by them and
-- actions about them; 404 user_not_found for an unknown id (a deleted account is shown: its
-- tombstone and what stayed); 401 without a console session, 403 not_moderator.
create function api.moderation_user_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_moderator uuid := api.console_moderator(moderation_user_get.token);
    v_user_id uuid := api.uuid_field(moderation_user_get.params, 'id');
begin
    if not exists (select from app.users u where u.id = v_user_id) then
        perform api.fail(404, 'user_not_found', 'There is no such user.');
    end if;
    return api.ok(api.console_session_json(moderation_user_get.token, moderation_user_get.params) || jsonb_build_object(
        'user', api.console_user_json(v_user_id) || jsonb_build_object('is_self', v_user_id = v_moderator),
        'avatar', (select jsonb_build_object('data_url', 'data:' || a.content_type || ';base64,' || translate(encode(a.data, 'base64'), E'\n', ''),
                                             'updated_at', api.iso(a.updated_at))
                   from app.avatars a where a.user_id = v_user_id),
        'display_names', coalesce((select jsonb_agg(jsonb_build_object('display_name', h.display_name, 'set_at', api.iso(h.set_at))
                                                    order by h.set_at desc, h.id desc)
                                   from app.display_name_history h where h.user_id = v_user_id), '[]'),
        'reports_against', coalesce((select jsonb_agg(api.console_report_json(r) order by r.created_at desc, r.id desc)
                                     from (select * from app.user_reports r where r.reported = v_user_id
                                           order by r.created_at desc, r.id desc limit 100) r), '[]'),
        'reports_by', coalesce((select jsonb_agg(api.console_report_json(r) order by r.created_at desc, r.id desc)
                                from (select * from app.user_reports r where r.reporter = v_user_id
                                      order by r.created_at desc, r.id desc limit 100) r), '[]'),
        'actions', coalesce((select jsonb_agg(api.console_action_json(m) order by m.created_at desc, m.id desc)
                             from (select * from app.moderation_actions m where m.user_id = v_user_id
                                   order by m.created_at desc, m.id desc limit 100) m), '[]')));
end
$$;
grant execute on function api.moderation_user_get(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_user_get(text, jsonb, jsonb) is
    'GET /moderation/people/{id} (web page): a user with avatar, display name history, reports against and by '
    'them and past actions; 404 user_not_found, 401 without a console session, 403 not_moderator.';

-- GET /moderation/audit (cookie session)
-- Guarantees: the newest 200 moderator actions, newest first, each with who acted on whom and
-- why; 401 without a console session, 403 not_moderator.
create function api.moderation_audit_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    perform api.console_moderator(moderation_audit_list.token);
    return api.ok(api.console_session_json(moderation_audit_list.token, moderation_audit_list.params) || jsonb_build_object(
        'actions', coalesce((select jsonb_agg(api.console_action_json(m) order by m.created_at desc, m.id desc)
                             from (select * from app.moderation_actions m
                                   order by m.created_at desc, m.id desc limit 200) m), '[]')));
end
$$;
grant execute on function api.moderation_audit_list(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_audit_list(text, jsonb, jsonb) is
    'GET /moderation/audit (web page): the newest 200 moderator actions; 401 without a console session, 403 not_moderator.';

-- POST /moderation/act {csrf_token, action, user_id | report_id, reason, display_name, until}
-- (a form, cookie session)
-- Guarantees: 403 csrf_failed without the session's CSRF token (nothing else is read first);
-- then exactly the action's own function with its checks and audit row:
--   rename {user_id, display_name}  api.moderation_users_rename
--   remove_avatar {user_id}         api.moderation_users_avatar_delete
--   suspend {user_id, until}        api.moderation_users_suspend (until: RFC 3339, or a date
--                                   and time without an offset, YYYY-MM-DD HH:MM, read as UTC)
--   ban {user_id}                   api.moderation_users_ban
--   resolve | dismiss {report_id}   api.moderation_reports_resolve (actioned | dismissed)
-- each with a reason. Its answer is {action, location}: the page to go back to.
create function api.moderation_action_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb;
    v_action text;
    v_reason jsonb;
    v_until text;
    v_id jsonb;
    v_reply api.reply;
begin
    -- The session and its CSRF token first: a forged form learns nothing about its fields.
    perform api.console_moderator(moderation_action_create.token, coalesce(moderation_action_create.body ->> 'csrf_token', ''));
    v_body := api.only_keys(moderation_action_create.body,
                            array['csrf_token', 'action', 'user_id', 'report_id', 'reason', 'display_name', 'until']);
    v_action := api.choice(api.text_field(v_body, 'action'), 'action', array['rename', 'remove_avatar', 'suspend', 'ban', 'resolve', 'dismiss']);
    v_reason := jsonb_build_object('reason', coalesce(v_body -> 'reason', 'null'));
    v_until := api.text_field(v_body, 'until', required => v_action = 'suspend');
    if v_action in ('resolve', 'dismiss') then
        v_id := jsonb_build_object('id', api.uuid_field(v_body, 'report_id'));
        v_reply := api.moderation_reports_resolve(moderation_action_create.token, v_id, v_reason || jsonb_build_object(
            'status', case v_action when 'resolve' then 'actioned' else 'dismissed' end));
        return api.ok(jsonb_build_object('action', v_reply.body -> 'report', 'location', '/moderation'));
    end if;
    v_id := jsonb_build_object('id', api.uuid_field(v_body, 'user_id'));
    if v_until ~ '^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?$' then
        v_until := v_until || 'Z';  -- a time typed in the form has no offset: the page says UTC
    end if;
    v_reply := case v_action
        when 'rename' then api.moderation_users_rename(moderation_action_create.token, v_id,
                                                        v_reason || jsonb_build_object('display_name', coalesce(v_body -> 'display_name', 'null')))
        when 'remove_avatar' then api.moderation_users_avatar_delete(moderation_action_create.token, v_id, v_reason)
        when 'suspend' then api.moderation_users_suspend(moderation_action_create.token, v_id,
                                                          v_reason || jsonb_build_object('until', v_until))
        else api.moderation_users_ban(moderation_action_create.token, v_id, v_reason)
    end;
    return api.ok(jsonb_build_object('action', v_reply.body -> 'action', 'location', '/moderation/people/' || (v_id ->> 'id')));
end
$$;
grant execute on function api.moderation_action_create(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_action_create(text, jsonb, jsonb) is
    'POST /moderation/act (web form): 403 csrf_failed without the session''s CSRF token, then one moderation action '
    '(rename, remove_avatar, suspend, ban, resolve, dismiss) through its own function, audited.';
