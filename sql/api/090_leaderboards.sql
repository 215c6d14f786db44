-- api leaderboards: focused minutes in the caller's current day or ISO week (from Monday), in
-- the caller's time zone, among your friends and you, or among everyone who focused in the
-- period (deleted accounts left out).

-- A user's minutes of a local day or week (period 'daily' or 'weekly', key the date or the
-- Monday) from the rollup; null when they did not focus then. Plain SQL, inlined where called.
create function api.rollup_minutes(user_id uuid, period text, key date)
returns integer
language sql stable
as $$
    select case rollup_minutes.period
               when 'daily' then (select d.minutes from app.daily_minutes d
                                  where d.user_id = rollup_minutes.user_id and d.day = rollup_minutes.key)
               else (select w.minutes from app.weekly_minutes w
                     where w.user_id = rollup_minutes.user_id and w.week = rollup_minutes.key)
           end
$$;

-- GET /leaderboards/{period}?scope=friends|global&limit=
-- Ties share a rank (rank()); `me` is the caller's rank and minutes even outside the top.
--
-- Minutes come from the rollup (app.daily_minutes / app.weekly_minutes, migration 0012): one row
-- per user and local day or week, kept in the transaction of the session that earns it. The
-- period is the caller's: their local date today (or the Monday of their local week), and every
-- member counts the minutes of that same calendar date (week) in their own time zone. For
-- members in the caller's zone this is exactly "sessions that ended since the caller's period
-- began"; across zones it is "the same calendar day for everyone", which one row per user
-- answers in index order at any number of users (README, "Scale").
--
-- Global: the top `limit` rows of the period read in index order, with every row tied with the
-- last of them (so ranks and the name order among ties are exact), and `me` ranked as 1 + the
-- users above the caller's minutes in the rank histogram (app.daily_minutes_counts /
-- app.weekly_minutes_counts, migration 0013): a sum over the distinct minute values above, not
-- over the users, so a caller ranked last costs what the first does; the board never sums sessions.
create function api.leaderboards_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(leaderboards_get.token);
    v_period text := api.choice(leaderboards_get.params ->> 'period', 'period', array['daily', 'weekly']);
    v_scope text := api.choice(coalesce(leaderboards_get.params ->> 'scope', 'friends'), 'scope', array['friends', 'global']);
    v_limit integer := api.integer_param(leaderboards_get.params, 'limit', 1, 100, 10);
    v_time_zone text := api.user_time_zone(v_user_id);
    v_start timestamptz := api.local_period_start(v_time_zone, now(), case v_period when 'daily' then 'day' else 'week' end);
    v_key date := (v_start at time zone v_time_zone)::date;
    v_mine integer := coalesce(api.rollup_minutes(v_user_id, v_period, v_key), 0);
    v_floor integer;
    v_top integer;
    v_my_rank bigint;
    v_body jsonb;
begin
    if v_scope = 'global' then
        if v_period = 'daily' then
            select min(t.minutes), count(*)::integer into v_floor, v_top
            from (select d.minutes from app.daily_minutes d where d.day = v_key order by d.minutes desc limit v_limit) t;
            v_my_rank := 1 + coalesce((select sum(c.users) from app.daily_minutes_counts c
                                       where c.day = v_key and c.minutes > v_mine), 0);
        else
            select min(t.minutes), count(*)::integer into v_floor, v_top
            from (select w.minutes from app.weekly_minutes w where w.week = v_key order by w.minutes desc limit v_limit) t;
            v_my_rank := 1 + coalesce((select sum(c.users) from app.weekly_minutes_counts c
                                       where c.week = v_key and c.minutes > v_mine), 0);
        end if;
        if v_top < v_limit then
            v_floor := 0;  -- fewer rows than the limit: every one of them, and the caller's zero
        end if;
    end if;

    with members as (
        select v_user_id as id, v_mine as minutes
        union
        select o.id, coalesce(api.rollup_minutes(o.id, v_period, v_key), 0)
        from app.friendships f cross join lateral (select api.other_user(f, v_user_id) as id) o
        where v_scope = 'friends' and (f.user_low = v_user_id or f.user_high = v_user_id) and f.status = 'accepted'
        union
        select d.user_id, d.minutes from app.daily_minutes d
        where v_scope = 'global' and v_period = 'daily' and d.day = v_key and d.minutes >= v_floor
        union
        select w.user_id, w.minutes from app.weekly_minutes w
        where v_scope = 'global' and v_period = 'weekly' and w.week = v_key and w.minutes >= v_floor
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
        'me', (select jsonb_build_object('rank', coalesce(v_my_rank, r.rank), 'minutes', r.minutes) from ranked r where r.id = v_user_id))
    into v_body;
    return api.ok(v_body);
end
$$;
grant execute on function api.leaderboards_get(text, jsonb, jsonb) to focus_api;
comment on function api.leaderboards_get(text, jsonb, jsonb) is
    'GET /leaderboards/{daily|weekly}: ranks by focused minutes, ties sharing a rank, with the caller''s own rank.';
