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

-- The users the global board leaves out for `viewer`: everyone suspended or banned now
-- (app.suspensions, 0017) and whoever the viewer blocked or was blocked by. Few: read through
-- app.suspensions and the two indexes of app.blocks, never the rollup.
create function api.board_hidden(viewer uuid)
returns table (user_id uuid)
language sql stable
as $$
    select s.user_id from app.suspensions s where s.until > now()
    union
    select b.blocked from app.blocks b where b.blocker = board_hidden.viewer
    union
    select b.blocker from app.blocks b where b.blocked = board_hidden.viewer
$$;

-- The global board's top for `viewer`: the first `entries` rows of the period in the order
-- (minutes desc, user_id), deleted accounts and api.board_hidden(viewer) left out. Read from the index (day, minutes desc, user_id) (0014)
-- in that order, guests and accounts under the age gate left out too (2026-12-07, docs/guests.md:
-- read from the user's row the probe reads anyway): an index scan that stops after `entries` live rows, whatever the number of users
-- tied at the edge (a Limit over a Nested Loop probing app.users by primary key; no Sort). A
-- deleted account has no rollup rows (0012 removes them when deleted_at is set), so the probe
-- skips none in practice; if one were left, it is skipped and the scan reads one row more. A
-- hidden user is skipped the same way (a probe of app.suspensions and of app.blocks by primary
-- key each way), one more row read per hidden user above the cut.
-- Plain SQL, inlined where called (sql/tests/090_leaderboards_ties.sql checks the plan).
create function api.board_top(period text, key date, entries integer, viewer uuid)
returns table (user_id uuid, minutes integer)
language sql stable
as $$
    (select d.user_id, d.minutes
     from app.daily_minutes d join app.users u on u.id = d.user_id
     where board_top.period = 'daily' and d.day = board_top.key and u.deleted_at is null
       and u.email is not null and not app.age_restricted(u.birth_month, u.parental_consent_at)
       and not exists (select from app.suspensions s where s.user_id = d.user_id and s.until > now())
       and not exists (select from app.blocks b where b.blocker = board_top.viewer and b.blocked = d.user_id)
       and not exists (select from app.blocks b where b.blocker = d.user_id and b.blocked = board_top.viewer)
     order by d.minutes desc, d.user_id
     limit board_top.entries)
    union all
    (select w.user_id, w.minutes
     from app.weekly_minutes w join app.users u on u.id = w.user_id
     where board_top.period = 'weekly' and w.week = board_top.key and u.deleted_at is null
       and u.email is not null and not app.age_restricted(u.birth_month, u.parental_consent_at)
       and not exists (select from app.suspensions s where s.user_id = w.user_id and s.until > now())
       and not exists (select from app.blocks b where b.blocker = board_top.viewer and b.blocked = w.user_id)
       and not exists (select from app.blocks b where b.blocker = w.user_id and b.blocked = board_top.viewer)
     order by w.minutes desc, w.user_id
     limit board_top.entries)
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
-- answers in index order at any number of users (docs/performance.md, "A million users").
--
-- Global: the entries are the first `limit` rows of the period in the order (minutes desc,
-- user_id) (api.board_top: `limit` rows read from an index, migration 0014). When more users tie
-- at the edge of the top than fit, the cut among them is by user id: stable and arbitrary (it
-- favours no name; ordering the tie by name meant reading every tied row with its name, 8,334
-- of them at a million users). Their ranks are rank() within that prefix, which is the global
-- rank: every row with more minutes than the prefix's last is inside the prefix, so no row of
-- the tie beyond the cut is read. When fewer than `limit` users focused, the caller with nothing
-- is listed last with 0. `me` is 1 + the users above the caller's minutes in the rank histogram
-- (app.daily_minutes_counts / app.weekly_minutes_counts, migration 0013): a sum over the
-- distinct minute values above, not over the users; the board never sums sessions.
-- Hidden users (api.board_hidden: suspended now, blocked either way) are not on the caller's
-- global board and do not count in its ranks: the entries are ranked without them, and `me`
-- subtracts those above the caller from the histogram's sum. The histogram itself counts every
-- rollup row (so report.counter_reconciliation holds whatever is suspended or blocked), and a
-- suspension that ends needs no write: from then on nobody subtracts the user.
-- Guests and accounts under the age gate are not on the global board (api.board_top); `me`
-- counts them above the caller all the same (the histogram holds every row, and subtracting
-- them would read every one), so a rank can be a few places lower than the entries show. A
-- guest asking for the global board is 403 guest_not_allowed (2026-12-07, docs/guests.md).
-- Friends: you and your friends (zeros included; a friend while suspended left out), cut at
-- `limit` by rank, then display name.
-- Within the returned entries, equal ranks are listed by display name (then id) in both scopes.
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
    v_my_rank bigint;
    v_body jsonb;
begin
    if v_scope = 'global' then
        perform api.refuse_guest(v_user_id, 'The global leaderboard');
        if v_period = 'daily' then
            v_my_rank := 1 + coalesce((select sum(c.users) from app.daily_minutes_counts c
                                       where c.day = v_key and c.minutes > v_mine), 0)
                           - (select count(*) from api.board_hidden(v_user_id) h
                              join app.daily_minutes d on d.user_id = h.user_id and d.day = v_key
                              where d.minutes > v_mine);
        else
            v_my_rank := 1 + coalesce((select sum(c.users) from app.weekly_minutes_counts c
                                       where c.week = v_key and c.minutes > v_mine), 0)
                           - (select count(*) from api.board_hidden(v_user_id) h
                              join app.weekly_minutes w on w.user_id = h.user_id and w.week = v_key
                              where w.minutes > v_mine);
        end if;
    end if;

    with top as (
        select t.user_id, t.minutes from api.board_top(v_period, v_key, v_limit, v_user_id) t where v_scope = 'global'
    ),
    members as (
        (select v_user_id as id, v_mine as minutes where v_scope = 'friends'
         union
         select o.id, coalesce(api.rollup_minutes(o.id, v_period, v_key), 0)
         from app.friendships f cross join lateral (select api.other_user(f, v_user_id) as id) o
         where v_scope = 'friends' and (f.user_low = v_user_id or f.user_high = v_user_id) and f.status = 'accepted'
          and not exists (select from app.suspensions s where s.user_id = o.id and s.until > now()))
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
    return api.ok(v_body, etag => md5(v_body::text));
end
$$;
grant execute on function api.leaderboards_get(text, jsonb, jsonb) to focus_api;
comment on function api.leaderboards_get(text, jsonb, jsonb) is
    'GET /leaderboards/{daily|weekly}: ranks by focused minutes, ties sharing a rank, with the caller''s own rank; the global top cut among ties by user id; '
    'the ETag is a digest of the answer.';
insert into api.endpoints (method, path, function, reads, errors, parameters)
values ('GET', '/leaderboards/{period}', 'api.leaderboards_get', 'replica when scope=global',
        '{account_suspended, guest_not_allowed, invalid_field}',
        '{"period": {"schema": {"type": "string", "enum": ["daily", "weekly"]}}}');
