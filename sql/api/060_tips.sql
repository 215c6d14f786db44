-- api tips: rating a session returns a tip of that level; tip sync for the phone's cache.

-- Tip = {id, title, content, rating_level}
create function api.tip_json(tip app.mindfulness_tips)
returns jsonb
language sql immutable
as $$
    select jsonb_build_object('id', tip.id, 'title', tip.title, 'content', tip.content,
                              'rating_level', tip.rating_level)
$$;

-- POST /focus-sessions/{id}/rating {rating}
-- Guarantees: the tip has the rating's level (bad → for stressful moments, good → for calm
-- ones); it is the one this user saw least recently, never-seen first, so no tip repeats
-- until every tip of that level was shown. The tip shown is recorded.
create function api.focus_sessions_rate(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_rate.token);
    v_body jsonb := api.only_keys(focus_sessions_rate.body, array['rating']);
    v_id uuid := api.uuid_field(focus_sessions_rate.params, 'id');
    v_rating text := api.choice(api.text_field(v_body, 'rating'), 'rating', array['good', 'fine', 'bad']);
    v_session app.focus_sessions;
    v_tip app.mindfulness_tips;
begin
    perform api.lock_user(v_user_id);
    select * into v_session from app.focus_sessions s where s.id = v_id and s.user_id = v_user_id;
    if v_session.id is null then
        perform api.fail(404, 'session_not_found', 'There is no such session.');
    end if;
    if v_session.ended_at is null then
        perform api.fail(409, 'session_not_finished', 'Finish the session before rating it.');
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
grant execute on function api.focus_sessions_rate(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_rate(text, jsonb, jsonb) is
    'POST /focus-sessions/{id}/rating: stores the rating and returns a tip of that level, least recently shown first.';

-- POST /sync/mindfulness-tips {known_ids} (public; also at /Sync/MindfulnessTips)
create function api.mindfulness_tips_sync(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(mindfulness_tips_sync.body, array['known_ids']);
    v_known uuid[] := api.known_ids(v_body);
begin
    return api.ok(api.sync_difference(v_known, (select jsonb_agg(api.tip_json(t) order by t.rating_level, t.title)
                                                from app.mindfulness_tips t where t.active)));
end
$$;
grant execute on function api.mindfulness_tips_sync(text, jsonb, jsonb) to focus_api;
comment on function api.mindfulness_tips_sync(text, jsonb, jsonb) is
    'POST /sync/mindfulness-tips: active tips the phone lacks, and the phone''s ids that are no longer active tips.';
