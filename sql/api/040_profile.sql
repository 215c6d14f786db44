-- api profile: the Profile object and GET/PATCH /me.

-- Profile = {id, email, email_verified, pending_email, display_name, bio, daily_goal_minutes, balance,
--            selected: {pet, sound, furniture}, settings: {show_tip_on_timer, time_zone, locale, push},
--            has_avatar, avatar_version, created_at, guest, age_restricted}
-- guest (2026-12-07): no email nor password yet (POST /auth/guest; email is null), until
-- POST /me/upgrade; age_restricted: under the age gate without a parent's consent
-- (docs/guests.md: what waits for an upgrade or a consent).
-- email is the sign-in and contact address; pending_email an address asked for by
-- POST /me/email and not verified yet (null when none), which becomes email once verified.
-- bio: what the person wrote about themselves (api.bio), null when unset.
-- daily_goal_minutes: the minutes a day they aim to focus (1 to 1440), null for no goal; theirs
-- only, never shown to others (GET /me/stats sets today's minutes against it).
-- avatar_version: as in UserCard (sql/api/070_friends.sql), null without an avatar.
-- settings.push: PushSettings (sql/api/038_push_settings.sql).

-- An avatar's version: its updated_at in microseconds since 1970; null for no avatar.
create function api.avatar_version(updated_at timestamptz)
returns bigint
language sql stable
as $$ select (extract(epoch from avatar_version.updated_at) * 1000000)::bigint $$;

create function api.profile(user_id uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object(
            'id', u.id,
            'email', u.email,
            'email_verified', u.email_verified_at is not null,
            'pending_email', api.pending_email(u.id),
            'display_name', u.display_name,
            'bio', u.bio,
            'daily_goal_minutes', u.daily_goal_minutes,
            'balance', u.balance,
            'selected', api.selected_json(u.id),
            'settings', jsonb_build_object('show_tip_on_timer', u.show_tip_on_timer, 'time_zone', u.time_zone,
                                           'locale', u.locale)
                        || jsonb_build_object('push', api.push_settings_json(u.id)),
            'has_avatar', a.user_id is not null,
            'avatar_version', api.avatar_version(a.updated_at),
            'created_at', api.iso(u.created_at),
            'guest', u.email is null,
            'age_restricted', app.age_restricted(u.birth_month, u.parental_consent_at))
        from app.users u left join app.avatars a on a.user_id = u.id
        where u.id = profile.user_id);
end
$$;

-- GET /me: the ETag is a digest of the answer (its bytes), so it changes exactly when the
-- Profile does (a purchase changes the balance, a selection the items shown).
create function api.me_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.profile(api.authenticate(me_get.token));
begin
    return api.ok(v_body, etag => md5(v_body::text));
end
$$;
grant execute on function api.me_get(text, jsonb, jsonb) to focus_api;
comment on function api.me_get(text, jsonb, jsonb) is 'GET /me: the caller''s Profile, with an ETag of the answer.';
insert into api.endpoints (method, path, function, localized, errors)
values ('GET', '/me', 'api.me_get', true, '{account_suspended}');

-- PATCH /me {display_name?, bio?, daily_goal_minutes?, settings?: {show_tip_on_timer?, time_zone?, locale?, push?}}
-- Guarantees: only the fields given change; unknown keys are 400 and change nothing; a time
-- zone is an IANA name PostgreSQL knows (pg_timezone_names, exact spelling), else 400 invalid_field;
-- a locale is a BCP 47 tag (app.language_tag_canonical: any case in, canonical case stored),
-- offered or not (push and mail use app.language_for), else 400 invalid_field;
-- a bio passes api.bio (400 invalid_field, inappropriate_bio), and null or "" clears it;
-- a daily goal is a whole number of minutes from 1 to 1440 (else 400 invalid_field), null clears it;
-- settings.push: quiet hours and muted push types (api.push_settings_apply, 400 invalid_field).
create function api.me_update(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_update.token);
    v_body jsonb := api.only_keys(me_update.body, array['display_name', 'bio', 'daily_goal_minutes', 'settings']);
    v_display_name text := api.display_name_field(v_body, required => false);
    v_bio text := api.bio(api.text_field(v_body, 'bio', required => false));
    v_daily_goal integer := api.integer_field(v_body, 'daily_goal_minutes', 1, 1440, required => false);
    v_settings jsonb := v_body -> 'settings';
    v_show_tip boolean;
    v_time_zone text;
    v_locale text;
begin
    if v_settings is not null and jsonb_typeof(v_settings) <> 'null' then
        if jsonb_typeof(v_settings) <> 'object' then
            perform api.fail_field('settings', 'must be an object.');
        end if;
        perform api.only_keys(v_settings, array['show_tip_on_timer', 'time_zone', 'locale', 'push']);
        v_show_tip := api.boolean_field(v_settings, 'show_tip_on_timer', required => false);
        v_time_zone := api.text_field(v_settings, 'time_zone', required => false);
        if v_time_zone is not null and not exists (select from pg_timezone_names z where z.name = v_time_zone) then
            perform api.fail_field('time_zone', 'must be an IANA time zone name, like Europe/Paris.');
        end if;
        v_locale := api.text_field(v_settings, 'locale', required => false, max_length => 35);
        if v_locale is not null and app.language_tag_canonical(v_locale) is null then
            perform api.fail_field('locale', 'must be a BCP 47 language tag, like es or pt-BR.');
        end if;
        if jsonb_typeof(v_settings -> 'push') = 'object' then
            perform api.push_settings_apply(v_user_id, v_settings -> 'push');
        elsif v_settings ? 'push' then
            perform api.fail_field('push', 'must be an object.');
        end if;
    end if;

    update app.users u
    set display_name = coalesce(v_display_name, u.display_name),
        bio = case when v_body ? 'bio' then v_bio else u.bio end,
        daily_goal_minutes = case when v_body ? 'daily_goal_minutes' then v_daily_goal else u.daily_goal_minutes end,
        show_tip_on_timer = coalesce(v_show_tip, u.show_tip_on_timer),
        time_zone = coalesce(v_time_zone, u.time_zone),
        locale = coalesce(app.language_tag_canonical(v_locale), u.locale),
        updated_at = now()
    where u.id = v_user_id;
    if v_time_zone is not null then
        perform app.reminder_streak_reschedule(v_user_id);  -- its evening is a local time
    end if;
    return api.ok(api.profile(v_user_id));
end
$$;
grant execute on function api.me_update(text, jsonb, jsonb) to focus_api;
comment on function api.me_update(text, jsonb, jsonb) is
    'PATCH /me: changes only the fields given (a null or empty bio clears it, a null daily goal too); unknown keys are 400 '
    'and change nothing.';
insert into api.endpoints (method, path, function, body, localized, errors)
values ('PATCH', '/me', 'api.me_update', 'json', true,
        '{account_suspended, inappropriate_bio, inappropriate_display_name, invalid_display_name, invalid_field}');
