-- api achievements: the person's own with their progress, a friend's unlocked ones, and the
-- answer of an action that unlocked some. The rules (what counts, the grant, the reward) are in
-- sql/app/130_achievements.sql.

-- Achievement = {code, name, description, reward_coins, unlocked_at}; unlocked_at is null while locked.
create function api.achievement_json(code text, unlocked_at timestamptz)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object('code', a.code, 'name', a.name, 'description', a.description,
                                  'reward_coins', a.reward_coins, 'unlocked_at', api.iso(achievement_json.unlocked_at))
        from app.achievements a where a.code = achievement_json.code);
end
$$;

-- The Achievements that one write of `user_id` unlocked (app.user_achievements.unlocked_by,
-- e.g. 'session:<id>'), in catalogue order; [] when none.
create function api.achievements_unlocked_by(user_id uuid, unlocked_by text)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return coalesce((select jsonb_agg(api.achievement_json(a.code, ua.unlocked_at) order by a.sort_order, a.code)
                     from app.user_achievements ua join app.achievements a on a.code = ua.achievement_code
                     where ua.user_id = achievements_unlocked_by.user_id
                       and ua.unlocked_by = achievements_unlocked_by.unlocked_by), '[]');
end
$$;

-- The reply of a write, with `achievements_unlocked`: the Achievements the write named
-- `unlocked_by` ('session:<id>', 'item:<id>', 'friendship:<id>', 'gift:<id>') unlocked for
-- `user_id`, in catalogue order, [] when none. The first time, those are the ones this
-- transaction granted the caller (app.grant_achievement notes them): they are marked
-- unlocked_by the write (their rows, so it outlives the transaction), and a `balance` in the
-- body is read again so it counts the reward. A repeat of the write (a finish of an ended
-- session, the same offline session again, an owned item bought again, an accepted request or
-- gift accepted again) calls this too and
-- grants nothing: it answers the same list from the marks, so the repeat carries what the first
-- answer carried (2026-12-06). The note is emptied (a request answers once; others' grants reach
-- them as events). Problems pass through unchanged.
create function api.with_achievements(reply api.reply, user_id uuid, unlocked_by text)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_noted jsonb := coalesce(nullif(current_setting('focus.achievements_unlocked', true), ''), '[]')::jsonb;
    v_reply api.reply := with_achievements.reply;
    v_marked integer := 0;
begin
    if v_reply.code is not null then
        return v_reply;
    end if;
    if jsonb_array_length(v_noted) > 0 then  -- a repeat (or a write that granted nothing) writes nothing
        update app.user_achievements ua set unlocked_by = with_achievements.unlocked_by
        where ua.user_id = with_achievements.user_id and ua.unlocked_by is null
          and ua.achievement_code in (select n ->> 'code' from jsonb_array_elements(v_noted) n
                                      where (n ->> 'user_id')::uuid = with_achievements.user_id);
        get diagnostics v_marked = row_count;
    end if;
    v_reply.body := v_reply.body || jsonb_build_object('achievements_unlocked',
                                                       api.achievements_unlocked_by(with_achievements.user_id, with_achievements.unlocked_by));
    if v_reply.body ? 'balance' and v_marked > 0 then
        v_reply.body := v_reply.body || jsonb_build_object('balance', (select u.balance from app.users u where u.id = with_achievements.user_id));
    end if;
    perform set_config('focus.achievements_unlocked', '', true);
    return v_reply;
end
$$;

-- GET /me/achievements: every active achievement and every one the caller holds, in catalogue
-- order, each an Achievement with its progress: current (the count now, from the tables) and
-- target (the count that unlocks it). An unlocked one stays unlocked when its count falls (a
-- friend removed).
create function api.me_achievements_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_achievements_list.token);
begin
    return api.ok(jsonb_build_object('achievements', coalesce((
        select jsonb_agg(api.achievement_json(a.code, ua.unlocked_at)
                         || jsonb_build_object('current', app.achievement_value(v_user_id, a.kind),
                                               'target', app.achievement_target(a.kind, a.threshold))
                         order by a.sort_order, a.code)
        from app.achievements a
        left join app.user_achievements ua on ua.user_id = v_user_id and ua.achievement_code = a.code
        where a.active or ua.unlocked_at is not null), '[]')));
end
$$;
grant execute on function api.me_achievements_list(text, jsonb, jsonb) to focus_api;
comment on function api.me_achievements_list(text, jsonb, jsonb) is
    'GET /me/achievements: every active achievement and each one held, with current and target and unlocked_at (null while locked).';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/achievements', 'api.me_achievements_list', '{account_suspended}');

-- GET /users/{id}/achievements: the achievements a friend unlocked, in catalogue order (no
-- progress: a friend sees what they reached, not their counts). Anyone else (a stranger, a
-- blocked or blocking account, a friend while suspended) is 404 user_not_found, exactly like an
-- unknown id, as GET /users/{id}.
create function api.users_achievements_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(users_achievements_list.token);
    v_other uuid := api.uuid_field(users_achievements_list.params, 'id');
begin
    perform api.visible_friend(v_user_id, v_other);
    return api.ok(jsonb_build_object('user_id', v_other, 'achievements', coalesce((
        select jsonb_agg(api.achievement_json(a.code, ua.unlocked_at) order by a.sort_order, a.code)
        from app.user_achievements ua join app.achievements a on a.code = ua.achievement_code
        where ua.user_id = v_other), '[]')));
end
$$;
grant execute on function api.users_achievements_list(text, jsonb, jsonb) to focus_api;
comment on function api.users_achievements_list(text, jsonb, jsonb) is
    'GET /users/{id}/achievements: a friend''s unlocked achievements; 404 user_not_found for anyone else.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/users/{id}/achievements', 'api.users_achievements_list',
        '{account_suspended, invalid_field, user_not_found}');
