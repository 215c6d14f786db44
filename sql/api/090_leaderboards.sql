-- api leaderboards: focused minutes in the caller's current day or ISO week (from Monday), in
-- the caller's time zone, among your friends and you, or among everyone who focused in the
-- period (deleted accounts left out).

-- GET /leaderboards/{period}?scope=friends|global&limit=
-- Ties share a rank (rank()); `me` is the caller's rank and minutes even outside the top.
create function api.leaderboards_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(leaderboards_get.token);
    v_period text := api.choice(leaderboards_get.params ->> 'period', 'period', array['daily', 'weekly']);
    v_scope text := api.choice(coalesce(leaderboards_get.params ->> 'scope', 'friends'), 'scope', array['friends', 'global']);
    v_limit integer := api.integer_param(leaderboards_get.params, 'limit', 1, 100, 10);
    v_start timestamptz;
    v_body jsonb;
begin
    v_start := api.local_period_start(api.user_time_zone(v_user_id), now(), case v_period when 'daily' then 'day' else 'week' end);

    with members as (
        select v_user_id as id
        union
        select api.other_user(f, v_user_id)
        from app.friendships f
        where v_scope = 'friends' and (f.user_low = v_user_id or f.user_high = v_user_id) and f.status = 'accepted'
        union
        select s.user_id from app.focus_sessions s
        where v_scope = 'global' and s.ended_at >= v_start and s.minutes > 0
    ),
    totals as (
        select m.id, coalesce((select sum(s.minutes) from app.focus_sessions s
                               where s.user_id = m.id and s.ended_at >= v_start), 0)::integer as minutes
        from members m
    ),
    ranked as (
        select t.id, t.minutes, rank() over (order by t.minutes desc) as rank, u.display_name
        from totals t join app.users u on u.id = t.id
        where u.deleted_at is null
    )
    select jsonb_build_object(
        'period_start', api.iso(v_start),
        'entries', coalesce((select jsonb_agg(jsonb_build_object('rank', r.rank, 'user', api.user_card(r.id), 'minutes', r.minutes)
                                              order by r.rank, r.display_name, r.id)
                             from (select * from ranked order by rank, display_name, id limit v_limit) r), '[]'),
        'me', (select jsonb_build_object('rank', r.rank, 'minutes', r.minutes) from ranked r where r.id = v_user_id))
    into v_body;
    return api.ok(v_body);
end
$$;
grant execute on function api.leaderboards_get(text, jsonb, jsonb) to focus_api;
comment on function api.leaderboards_get(text, jsonb, jsonb) is
    'GET /leaderboards/{daily|weekly}: ranks by focused minutes, ties sharing a rank, with the caller''s own rank.';
