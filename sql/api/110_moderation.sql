-- api moderation: what moderators (app.moderators, granted by a DBA) do over /moderation/…:
-- read and resolve reports, rename a user, remove an avatar, suspend until a time, ban. Every
-- action is written to app.moderation_actions with the moderator, the time and the reason
-- (required), in the transaction that makes the change. docs/moderation.md has the policy.

-- The moderator a bearer token belongs to: 401 as api.authenticate (and 403 account_suspended
-- for a suspended moderator), then 403 not_moderator for an account that is not one.
create function api.authenticate_moderator(token text)
returns uuid
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(authenticate_moderator.token);
begin
    if not exists (select from app.moderators m where m.user_id = v_user_id) then
        perform api.fail(403, 'not_moderator', 'Only moderators may do this.');
    end if;
    return v_user_id;
end
$$;

-- The reason a moderator gives, trimmed: required, 1 to 1000 characters (400 invalid_field).
create function api.reason_field(body jsonb)
returns text
language plpgsql volatile
as $$
declare
    v_reason text := btrim(api.text_field(reason_field.body, 'reason'));
begin
    if length(v_reason) not between 1 and 1000 then
        perform api.fail_field('reason', 'must be 1 to 1000 characters.');
    end if;
    return v_reason;
end
$$;

-- ModerationAction = {id, created_at, moderator_id, action, user_id, report_id, reason, details}
create function api.moderation_action_json(action app.moderation_actions)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('id', action.id, 'created_at', api.iso(action.created_at), 'moderator_id', action.moderator,
                              'action', action.action, 'user_id', action.user_id, 'report_id', action.report_id,
                              'reason', action.reason, 'details', action.details)
$$;

-- Writes one audit row and answers {action: ModerationAction}.
create function api.record_moderation(moderator uuid, action text, user_id uuid, reason text,
                                      details jsonb default '{}', report_id uuid default null)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_action app.moderation_actions;
begin
    insert into app.moderation_actions (moderator, action, user_id, report_id, reason, details)
    values (record_moderation.moderator, record_moderation.action, record_moderation.user_id,
            record_moderation.report_id, record_moderation.reason, record_moderation.details)
    returning * into v_action;
    return api.ok(jsonb_build_object('action', api.moderation_action_json(v_action)));
end
$$;

-- The end of a user's suspension as the API writes it: null when none holds, 'infinity' for a
-- ban (answered as {banned: true, suspended_until: null}).
create function api.suspension_json(user_id uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object('banned', coalesce(s.until = 'infinity', false),
                                  'suspended_until', case when s.until < 'infinity' then api.iso(s.until) end)
        from (select) one
        left join app.suspensions s on s.user_id = suspension_json.user_id and s.until > now());
end
$$;

-- ModerationReport = {id, status, reason, details, created_at, reporter: UserCard,
--   user: UserCard + {banned, suspended_until, guest, age_restricted}, reports_about_user, resolved_at, resolved_by, resolution}
-- guest and age_restricted (2026-12-07, docs/guests.md): a moderator sees that the account is a
-- guest, or is under the age gate without a parent's consent (a child: handle with that in mind).
create function api.moderation_report_json(report app.user_reports)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object(
            'id', report.id, 'status', report.status, 'reason', report.reason, 'details', report.details,
            'created_at', api.iso(report.created_at),
            'reporter', api.user_card(report.reporter),
            'user', api.user_card(report.reported) || api.suspension_json(report.reported)
                    || (select jsonb_build_object('guest', u.email is null and u.deleted_at is null,
                                                  'age_restricted', app.age_restricted(u.birth_month, u.parental_consent_at))
                        from app.users u where u.id = report.reported),
            'reports_about_user', (select count(*) from app.user_reports o where o.reported = report.reported),
            'resolved_at', api.iso(report.resolved_at), 'resolved_by', report.resolved_by, 'resolution', report.resolution));
end
$$;

-- GET /moderation/reports?status=open|actioned|dismissed&user_id=&limit=&cursor=
-- Guarantees: the reports of one status (open unless given), oldest first (created_at, id), at
-- most `limit` (1 to 100, 50 unless given); about one user when user_id is given. next_cursor
-- (null on the last page) is sent back as `cursor` for the next page; a cursor this list did
-- not give is 400 invalid_cursor. `after`, the id of the last report of the previous page, is
-- still read (the page after that report; an unknown id is 400 invalid_field), and so is a
-- next_cursor sent back as `after` (as clients did when next_cursor was that id); not with a
-- cursor. Read from user_reports_status, or user_reports_reported_status with user_id
-- (migration 0022). 403 not_moderator for anyone else.
create function api.moderation_reports_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_status text;
    v_limit integer;
    v_user uuid;
    v_after uuid;
    v_key jsonb;
    v_after_at timestamptz;
    v_after_id uuid;
    v_page app.user_reports[];
begin
    -- Who first: anyone else gets 403 whatever the parameters.
    perform api.authenticate_moderator(moderation_reports_list.token);
    v_status := api.choice(coalesce(moderation_reports_list.params ->> 'status', 'open'), 'status', array['open', 'actioned', 'dismissed']);
    v_limit := api.page_limit(moderation_reports_list.params, 50, 100);
    v_user := api.uuid_field(moderation_reports_list.params, 'user_id', required => false);
    v_key := api.cursor_decode(moderation_reports_list.params, 'reports', array['time', 'uuid']);
    if moderation_reports_list.params ? 'after' then
        if v_key is not null then
            perform api.fail_field('after', 'cannot be sent with cursor; send cursor alone.');
        end if;
        if api.is_uuid(moderation_reports_list.params ->> 'after') then
            v_after := (moderation_reports_list.params ->> 'after')::uuid;
        else  -- a client written when next_cursor was an id sends the opaque one back as `after`
            v_key := api.cursor_decode(jsonb_build_object('cursor', moderation_reports_list.params ->> 'after'),
                                       'reports', array['time', 'uuid']);
        end if;
    end if;
    if v_after is not null then
        select r.created_at, r.id into v_after_at, v_after_id from app.user_reports r where r.id = v_after;
        if v_after_id is null then
            perform api.fail_field('after', 'is not a report; use next_cursor from the previous page.');
        end if;
    elsif v_key is not null then
        v_after_at := (v_key ->> 0)::timestamptz;
        v_after_id := (v_key ->> 1)::uuid;
    end if;
    select coalesce(array_agg(p.r order by (p.r).created_at, (p.r).id), '{}') into v_page
    from (select r from app.user_reports r
          where r.status = v_status
            and (v_user is null or r.reported = v_user)
            and (v_after_id is null or (r.created_at, r.id) > (v_after_at, v_after_id))
          order by r.created_at, r.id
          limit v_limit + 1) p;
    return api.ok(jsonb_build_object(
        'reports', coalesce((select jsonb_agg(api.moderation_report_json(r) order by r.created_at, r.id)
                             from unnest(v_page[1:v_limit]) r), '[]'),
        'next_cursor', case when cardinality(v_page) > v_limit
                            then api.cursor_encode('reports', jsonb_build_array(api.iso(v_page[v_limit].created_at),
                                                                                v_page[v_limit].id)) end));
end
$$;
grant execute on function api.moderation_reports_list(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_reports_list(text, jsonb, jsonb) is
    'GET /moderation/reports: reports of a status (open by default), oldest first, paged (limit 1 to 100, 50 by default; '
    'cursor, next_cursor; 400 invalid_cursor); 403 not_moderator.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/moderation/reports', 'api.moderation_reports_list',
        '{account_suspended, invalid_cursor, invalid_field, not_moderator}');

-- POST /moderation/reports/{id}/resolve {status: actioned|dismissed, reason}
-- Guarantees: an open report becomes actioned or dismissed with the moderator, the time and
-- the reason, audited as resolve_report; the report's row is locked, so of two racing
-- resolutions one wins and the other is 409 report_resolved. 404 report_not_found.
create function api.moderation_reports_resolve(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_moderator uuid := api.authenticate_moderator(moderation_reports_resolve.token);
    v_id uuid := api.uuid_field(moderation_reports_resolve.params, 'id');
    v_body jsonb := api.only_keys(moderation_reports_resolve.body, array['status', 'reason']);
    v_status text := api.choice(api.text_field(v_body, 'status'), 'status', array['actioned', 'dismissed']);
    v_reason text := api.reason_field(v_body);
    v_report app.user_reports;
begin
    select * into v_report from app.user_reports r where r.id = v_id for update;
    if v_report.id is null then
        perform api.fail(404, 'report_not_found', 'There is no such report.');
    end if;
    if v_report.status <> 'open' then
        perform api.fail(409, 'report_resolved', 'That report was already resolved.');
    end if;
    update app.user_reports r
    set status = v_status, resolved_at = now(), resolved_by = v_moderator, resolution = v_reason
    where r.id = v_id
    returning * into v_report;
    perform api.record_moderation(v_moderator, 'resolve_report', v_report.reported, v_reason,
                                  jsonb_build_object('status', v_status), v_report.id);
    return api.ok(jsonb_build_object('report', api.moderation_report_json(v_report)));
end
$$;
grant execute on function api.moderation_reports_resolve(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_reports_resolve(text, jsonb, jsonb) is
    'POST /moderation/reports/{id}/resolve: actioned or dismissed with a reason, audited; 404 report_not_found, 409 report_resolved.';
insert into api.endpoints (method, path, function, body, errors)
values ('POST', '/moderation/reports/{id}/resolve', 'api.moderation_reports_resolve', 'json',
        '{account_suspended, invalid_field, not_moderator, report_not_found, report_resolved}');

-- POST /moderation/users/{id}/rename {display_name, reason}
-- Guarantees: the name passes exactly the checks of a user's own rename and of sign-up
-- (api.display_name_field: 400 invalid_display_name and whatever that function refuses);
-- changed under the user's lock, audited as rename with the new name. 404 user_not_found,
-- 422 cannot_moderate_self.
create function api.moderation_users_rename(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_moderator uuid := api.authenticate_moderator(moderation_users_rename.token);
    v_user_id uuid := api.other_user_param(moderation_users_rename.params, v_moderator, 'cannot_moderate_self');
    v_body jsonb := api.only_keys(moderation_users_rename.body, array['display_name', 'reason']);
    v_display_name text := api.display_name_field(v_body, required => true);
    v_reason text := api.reason_field(v_body);
begin
    perform api.lock_user(v_user_id);
    update app.users u set display_name = v_display_name, updated_at = now() where u.id = v_user_id;
    return api.record_moderation(v_moderator, 'rename', v_user_id, v_reason,
                                 jsonb_build_object('display_name', v_display_name));
end
$$;
grant execute on function api.moderation_users_rename(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_users_rename(text, jsonb, jsonb) is
    'POST /moderation/users/{id}/rename: a new display name (checked as a user''s own), audited; 404 user_not_found.';
insert into api.endpoints (method, path, function, body, errors)
values ('POST', '/moderation/users/{id}/rename', 'api.moderation_users_rename', 'json',
        '{account_suspended, cannot_moderate_self, invalid_display_name, invalid_field, not_moderator, user_not_found}');

-- DELETE /moderation/users/{id}/avatar {reason}
-- Guarantees: the avatar is gone and the removal audited; 404 avatar_not_found when there was
-- none (nothing audited), 404 user_not_found, 422 cannot_moderate_self.
create function api.moderation_users_avatar_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_moderator uuid := api.authenticate_moderator(moderation_users_avatar_delete.token);
    v_user_id uuid := api.other_user_param(moderation_users_avatar_delete.params, v_moderator, 'cannot_moderate_self');
    v_body jsonb := api.only_keys(moderation_users_avatar_delete.body, array['reason']);
    v_reason text := api.reason_field(v_body);
begin
    delete from app.avatars a where a.user_id = v_user_id;
    if not found then
        perform api.fail(404, 'avatar_not_found', 'That user has no avatar.');
    end if;
    return api.record_moderation(v_moderator, 'remove_avatar', v_user_id, v_reason);
end
$$;
grant execute on function api.moderation_users_avatar_delete(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_users_avatar_delete(text, jsonb, jsonb) is
    'DELETE /moderation/users/{id}/avatar: removes the avatar, audited; 404 avatar_not_found, user_not_found.';
insert into api.endpoints (method, path, function, body, errors)
values ('DELETE', '/moderation/users/{id}/avatar', 'api.moderation_users_avatar_delete', 'json',
        '{account_suspended, avatar_not_found, cannot_moderate_self, invalid_field, not_moderator, user_not_found}');

-- Sets a user's suspension to end at `until` ('infinity' for a ban), replacing any earlier one.
create function api.suspend_user(user_id uuid, until timestamptz)
returns void
language sql volatile security definer set search_path = public, pg_temp
as $$
    insert into app.suspensions as s (user_id, until) values (suspend_user.user_id, suspend_user.until)
    on conflict (user_id) do update set until = excluded.until, updated_at = now()
$$;

-- POST /moderation/users/{id}/suspend {until, reason}
-- Guarantees: from now until `until` (RFC 3339, later than now, else 400 invalid_field) the user
-- answers 403 account_suspended on every route but export, deletion and logout, and is left
-- out of boards, friends lists and islands; it ends by itself at `until`. It replaces any
-- suspension or ban before it (a shorter one shortens it). Audited as suspend with the end.
create function api.moderation_users_suspend(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_moderator uuid := api.authenticate_moderator(moderation_users_suspend.token);
    v_user_id uuid := api.other_user_param(moderation_users_suspend.params, v_moderator, 'cannot_moderate_self');
    v_body jsonb := api.only_keys(moderation_users_suspend.body, array['until', 'reason']);
    v_until timestamptz := api.time_field(v_body, 'until');
    v_reason text := api.reason_field(v_body);
begin
    if v_until <= now() or v_until = 'infinity' then
        perform api.fail_field('until', 'must be a time in the future.');
    end if;
    perform api.lock_user(v_user_id);
    perform api.suspend_user(v_user_id, v_until);
    return api.record_moderation(v_moderator, 'suspend', v_user_id, v_reason,
                                 jsonb_build_object('until', api.iso(v_until)));
end
$$;
grant execute on function api.moderation_users_suspend(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_users_suspend(text, jsonb, jsonb) is
    'POST /moderation/users/{id}/suspend: 403 account_suspended for the user until the given time, audited; 404 user_not_found.';
insert into api.endpoints (method, path, function, body, errors)
values ('POST', '/moderation/users/{id}/suspend', 'api.moderation_users_suspend', 'json',
        '{account_suspended, cannot_moderate_self, invalid_field, not_moderator, user_not_found}');

-- POST /moderation/users/{id}/ban {reason}
-- Guarantees: a suspension without end (until 'infinity'); audited as ban.
create function api.moderation_users_ban(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_moderator uuid := api.authenticate_moderator(moderation_users_ban.token);
    v_user_id uuid := api.other_user_param(moderation_users_ban.params, v_moderator, 'cannot_moderate_self');
    v_body jsonb := api.only_keys(moderation_users_ban.body, array['reason']);
    v_reason text := api.reason_field(v_body);
begin
    perform api.lock_user(v_user_id);
    perform api.suspend_user(v_user_id, 'infinity');
    return api.record_moderation(v_moderator, 'ban', v_user_id, v_reason);
end
$$;
grant execute on function api.moderation_users_ban(text, jsonb, jsonb) to focus_api;
comment on function api.moderation_users_ban(text, jsonb, jsonb) is
    'POST /moderation/users/{id}/ban: 403 account_suspended for the user from now on, audited; 404 user_not_found.';
insert into api.endpoints (method, path, function, body, errors)
values ('POST', '/moderation/users/{id}/ban', 'api.moderation_users_ban', 'json',
        '{account_suspended, cannot_moderate_self, invalid_field, not_moderator, user_not_found}');
