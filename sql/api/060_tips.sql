-- api tips: rating a session returns a tip of that level; tip sync for the phone's cache.

-- Tip = {id, title, content, rating_level}
-- title and content are in the request's language (api.language()): its row of
-- app.mindfulness_tip_translations, else the tip's own English.
create function api.tip_json(tip app.mindfulness_tips)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object('id', tip.id, 'title', coalesce(t.title, tip.title), 'content', coalesce(t.content, tip.content),
                                  'rating_level', tip.rating_level)
        from (values (1)) as one (n)
        left join app.mindfulness_tip_translations t on t.tip_id = tip.id and t.language = api.language());
end
$$;

-- POST /focus-sessions/{id}/rating {rating}
-- Guarantees: the tip has the rating's level (bad → for stressful moments, good → for calm
-- ones); it is the one this user saw least recently, never-seen first, so no tip repeats
-- until every tip of that level was shown (the views compacted past a horizon count by their
-- newest, app.tip_views_compacted). The tip shown is recorded. A session moved past the
-- horizon (app.focus_sessions_archived) is not the caller's to rate: 404 session_not_found. It is in the request's
-- language (api.tip_json), and a retry in another language gets the same tip in that one.
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
    v_session := api.own_session(v_user_id, v_id);
    if v_session.ended_at is null then
        perform api.fail(409, 'session_not_finished', 'Finish the session before rating it.');
    end if;
    -- The same rating again (a retry): the tip that session was given, nothing new recorded.
    -- Past the compaction's horizon only the newest view of each tip is kept (0054): a session
    -- whose view was folded into a newer one answers without its tip.
    if v_session.rating = v_rating then
        select t.* into v_tip
        from (select v.tip_id, v.shown_at, v.id from app.tip_views v where v.session_id = v_id
              union all
              select c.tip_id, c.shown_at, c.view_id from app.tip_views_compacted c
              where c.user_id = v_user_id and c.session_id = v_id) v
        join app.mindfulness_tips t on t.id = v.tip_id
        order by v.shown_at desc, v.id desc
        limit 1;
        if v_tip.id is null or v_tip.rating_level = v_rating then
            return api.ok(jsonb_build_object('session', api.session_json(v_session),
                                             'tip', case when v_tip.id is not null then api.tip_json(v_tip) end));
        end if;
    end if;
    update app.focus_sessions s set rating = v_rating, rated_at = now() where s.id = v_id
    returning * into v_session;
    if v_session.id is null then  -- moved past the horizon since api.own_session read it (0055)
        perform api.fail(404, 'session_not_found', 'There is no such session.');
    end if;

    select t.* into v_tip
    from app.mindfulness_tips t
    left join lateral (select greatest((select max(v.shown_at) from app.tip_views v
                                        where v.user_id = v_user_id and v.tip_id = t.id),
                                       (select c.shown_at from app.tip_views_compacted c
                                        where c.user_id = v_user_id and c.tip_id = t.id)) as last_shown) seen on true
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
    'POST /focus-sessions/{id}/rating: stores the rating and returns a tip of that level, least recently shown first; '
    'the same rating again returns the same tip and records nothing.';
insert into api.endpoints (method, path, function, body, localized, errors)
values ('POST', '/focus-sessions/{id}/rating', 'api.focus_sessions_rate', 'json', true,
        '{account_suspended, invalid_field, session_not_finished, session_not_found}');

-- POST /sync/mindfulness-tips {known_ids} (public; also at /Sync/MindfulnessTips)
-- Tips are in the request's language (api.tip_json), in the same order in every language.
-- Also the body of the app the product comes from, {"itemIds": [uuid]}, its name matched
-- ignoring case as that app's server bound it (ItemIds, itemids): then the answer is that
-- app's shape, {"missingItems": [{id, title, content, sessionRatingLevel}]} with the level
-- written Good, Fine or Bad. Our own body keeps our own answer ({missing, removed}).
-- Each answer names its shape in `kind` (the document's discriminator, 2026-12-07): 'tip_sync'
-- for ours, 'original_tip_sync' beside missingItems (one member more in that app's shape, which
-- its app does not read).
create function api.mindfulness_tips_sync(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_original text := (select k from jsonb_object_keys(mindfulness_tips_sync.body) as k
                        where lower(k) = 'itemids' order by k limit 1);
    v_body jsonb;
    v_known uuid[];
begin
    if v_original is not null then
        v_body := api.only_keys(mindfulness_tips_sync.body, array[v_original]);
        v_known := api.known_ids(v_body, v_original);
        return api.ok(jsonb_build_object('kind', 'original_tip_sync', 'missingItems', coalesce(
            (select jsonb_agg(jsonb_build_object('id', t.id, 'title', j.tip ->> 'title', 'content', j.tip ->> 'content',
                                                 'sessionRatingLevel', initcap(t.rating_level))
                              order by t.rating_level, t.title)
             from app.mindfulness_tips t cross join lateral (select api.tip_json(t) as tip) j
             where t.active and t.id <> all (v_known)), '[]')));
    end if;
    v_body := api.only_keys(mindfulness_tips_sync.body, array['known_ids']);
    v_known := api.known_ids(v_body);
    return api.ok(jsonb_build_object('kind', 'tip_sync')
                  || api.sync_difference(v_known, (select jsonb_agg(api.tip_json(t) order by t.rating_level, t.title)
                                                   from app.mindfulness_tips t where t.active)));
end
$$;
grant execute on function api.mindfulness_tips_sync(text, jsonb, jsonb) to focus_api;
comment on function api.mindfulness_tips_sync(text, jsonb, jsonb) is
    'POST /sync/mindfulness-tips: active tips the phone lacks, and the phone''s ids that are no longer active tips; '
    'the original app''s {itemIds} body gets its {missingItems} answer.';
insert into api.endpoints (method, path, function, access, body, body_limit, reads, localized, errors)
values ('POST', '/sync/mindfulness-tips', 'api.mindfulness_tips_sync', 'public', 'json', 1024 * 1024,
        'replica', true, '{invalid_field}');
insert into api.endpoints (method, path, function, operation_id, access, body, body_limit, reads, localized, errors)
values ('POST', '/Sync/MindfulnessTips', 'api.mindfulness_tips_sync', 'mindfulness_tips_sync_original',
        'public', 'json', 1024 * 1024, 'replica', true, '{invalid_field}');
