-- api focus sessions: the live path (server's clock), the offline path (phone's id and times),
-- listing and stats. Coins come only from here, computed from minutes and app.economy_settings.

-- Session = {id, started_at, ended_at, planned_minutes, minutes, coins_earned, rating, abandoned, tag}
-- ended_at and minutes are null while a live session runs; planned_minutes is null for an
-- offline session recorded without a plan; abandoned: ended by abandon (0 minutes, no coins);
-- tag: the person's label (api.session_tag), null when unset.
create function api.session_json(session app.focus_sessions)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('id', session.id, 'started_at', api.iso(session.started_at),
                              'ended_at', api.iso(session.ended_at), 'planned_minutes', session.planned_minutes,
                              'minutes', session.minutes,
                              'coins_earned', session.coins_earned, 'rating', session.rating,
                              'abandoned', session.abandoned, 'tag', session.tag)
$$;

-- The optional `tag` of a session's body in its one normal form (app.session_tag_is_clean):
-- NFC, trimmed, runs of white space made one space, lower case. Absent, null or only spaces:
-- null (no tag). Longer than 32 characters, or holding a control, bidi or invisible character:
-- 400 invalid_field.
create function api.session_tag(body jsonb)
returns text
language plpgsql volatile
as $$
declare
    v_text text := api.text_field(session_tag.body, 'tag', required => false, max_length => 200);
begin
    v_text := lower(regexp_replace(regexp_replace(normalize(v_text, nfc), '\s+', ' ', 'g'), '^ | $', '', 'g'));
    if v_text = '' then
        return null;
    end if;
    if not app.session_tag_is_clean(v_text) then
        perform api.fail_field('tag', 'must be 1 to 32 characters without control or invisible characters.');
    end if;
    return v_text;
end
$$;

-- The caller's own session, read under the caller's lock (api.lock_user): one earning, rating
-- or ending per user at a time. Anyone else's id answers 404 session_not_found, exactly like
-- an unknown one.
create function api.own_session(user_id uuid, session_id uuid)
returns app.focus_sessions
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_session app.focus_sessions;
begin
    perform api.lock_user(own_session.user_id);
    select * into v_session from app.focus_sessions s
    where s.id = own_session.session_id and s.user_id = own_session.user_id;
    if v_session.id is null then
        perform api.fail(404, 'session_not_found', 'There is no such session.');
    end if;
    return v_session;
end
$$;

-- {session, balance}: the session as it is and the owner's balance now (abandon, a rating's re-read).
create function api.session_reply(session_id uuid, status integer default null)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.ok(jsonb_build_object('session', api.session_json(s), 'balance', u.balance), status => session_reply.status)
        from app.focus_sessions s join app.users u on u.id = s.user_id
        where s.id = session_reply.session_id);
end
$$;

-- {session, balance, achievements_unlocked}: the answer of finish and record, the same every
-- time (2026-12-06). The first (the write that ended or recorded the session) answers the
-- session as it is, the balance now and what it unlocked (api.with_achievements marks those),
-- and keeps that balance on the session (balance_after). Every repeat answers those bytes again:
-- the session (rating null, as the first answered it: a session is rated only once it ended,
-- so the write that ended it saw none; the rest of a Session does not change after its end),
-- balance_after, and the achievements marked as that write's. A session no finish or record
-- answered (an abandoned one, one ended before 0037) answers as it is and the balance now, with
-- what it unlocked ([]), and keeps nothing.
create function api.session_answer(session_id uuid, user_id uuid, first boolean, status integer default null)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_session app.focus_sessions;
    v_reply api.reply;
begin
    select * into v_session from app.focus_sessions s where s.id = session_answer.session_id;
    if v_session.balance_after is not null then
        v_reply := api.ok(jsonb_build_object('session', api.session_json(v_session) || '{"rating": null}',
                                             'balance', v_session.balance_after), status => session_answer.status);
    else
        v_reply := api.session_reply(session_answer.session_id, session_answer.status);
    end if;
    v_reply := api.with_achievements(v_reply, session_answer.user_id, 'session:' || session_answer.session_id);
    if session_answer.first then
        update app.focus_sessions s set balance_after = (v_reply.body ->> 'balance')::integer where s.id = session_answer.session_id;
    end if;
    return v_reply;
end
$$;

-- Pays a finished session: floor(minutes * coins_per_minute) once it reaches min_minutes_to_earn;
-- offline sessions share offline_daily_coin_cap per limit day of their end (api.limit_day: the
-- UTC day). UTC, not the user's zone: the zone is a setting the user changes at will, and a
-- local day moved between uploads would open a fresh cap each time (docs/economy.md, "Limits
-- count UTC days"). Days are fixed, so all the offline coins
-- of any UTC day add up to at most the cap, in whatever order and zone they arrive. Writes the
-- coins on the session and one 'earn' ledger row (a unique index makes a second one
-- impossible). The caller holds the user's lock, so racing uploads count each other.
create function api.pay_session(session_id uuid)
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_session app.focus_sessions;
    v_settings app.economy_settings;
    v_day tstzrange;
    v_coins integer;
    v_earned_that_day integer;
begin
    select * into v_session from app.focus_sessions s where s.id = pay_session.session_id;
    select * into v_settings from app.economy_settings;
    v_coins := case when v_session.minutes >= v_settings.min_minutes_to_earn
                    then floor(v_session.minutes * v_settings.coins_per_minute)::integer else 0 end;
    if v_session.source = 'offline' then
        v_day := api.limit_day(v_session.ended_at);
        select coalesce(sum(s.coins_earned), 0)::integer into v_earned_that_day
        from app.focus_sessions s
        where s.user_id = v_session.user_id and s.source = 'offline'
          and s.ended_at >= lower(v_day) and s.ended_at < upper(v_day);
        v_coins := greatest(0, least(v_coins, v_settings.offline_daily_coin_cap - v_earned_that_day));
    end if;
    if v_coins > 0 then
        update app.focus_sessions s set coins_earned = v_coins where s.id = v_session.id;
        insert into app.coin_ledger (user_id, entry, amount, reason, session_id)
        values (v_session.user_id, 'earn', v_coins, 'focus session', v_session.id);
    end if;
    return v_coins;
end
$$;

-- Where a running live session ends if it ends now: the plan is the commitment, so time past
-- it (or past the maximum) is not counted; never before its start.
create function api.live_end(session app.focus_sessions)
returns timestamptz
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select greatest(session.started_at + interval '1 microsecond',
                        least(now(), session.started_at + make_interval(mins => coalesce(session.planned_minutes, e.max_session_minutes)),
                              session.started_at + make_interval(mins => e.max_session_minutes)))
        from app.economy_settings e);
end
$$;

-- POST /focus-sessions/start {planned_minutes, tag?}: answers {session}, like finish (without the
-- balance, which starting does not move).
create function api.focus_sessions_start(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_start.token);
    v_body jsonb := api.only_keys(focus_sessions_start.body, array['planned_minutes', 'tag']);
    v_settings app.economy_settings;
    v_planned integer;
    v_tag text := api.session_tag(v_body);
    v_running uuid;
    v_session app.focus_sessions;
begin
    select * into v_settings from app.economy_settings;
    v_planned := api.integer_field(v_body, 'planned_minutes', 1, v_settings.max_session_minutes);
    perform api.lock_user(v_user_id);
    select s.id into v_running from app.focus_sessions s where s.user_id = v_user_id and s.ended_at is null;
    if v_running is not null then
        perform api.fail(409, 'session_in_progress', 'Finish the session that is running first.',
                         jsonb_build_object('id', v_running));
    end if;
    begin
        insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, occupies, tag)
        values (gen_random_uuid(), v_user_id, 'live', v_planned, now(),
                tstzrange(now(), now() + make_interval(mins => v_settings.max_session_minutes)), v_tag)
        returning * into v_session;
    exception when exclusion_violation then
        perform api.fail(409, 'session_overlap', 'Another session already covers this time.');
    end;
    return api.ok(jsonb_build_object('session', api.session_json(v_session)));
end
$$;
grant execute on function api.focus_sessions_start(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_start(text, jsonb, jsonb) is
    'POST /focus-sessions/start: the server''s clock starts; 409 session_in_progress (with its id) while one runs.';
insert into api.endpoints (method, path, function, status, body, errors)
values ('POST', '/focus-sessions/start', 'api.focus_sessions_start', 201, 'json',
        '{account_suspended, invalid_field, session_in_progress, session_overlap}');

-- POST /focus-sessions/{id}/finish {ended_at?}
-- Without ended_at the server's clock ends the session now. With it, a phone that stopped
-- while offline says when (2026-12-01): the session ends there, so it counts the minutes
-- really focused, not the time until the phone reconnected. Guarantees: ended_at after the
-- start and not past now (a phone's clock may run ahead by clock_skew, read as now), else 422
-- invalid_session and nothing changes; the end is never past the plan or the maximum length
-- (api.live_end), so an ended_at cannot earn more than finishing now would; coins by the
-- minutes between start and that end (api.pay_session, the same rates as any session).
-- Finishing an ended session answers what its finish answered, whatever ended_at says
-- (api.session_answer: the same bytes, achievements_unlocked included).
create function api.focus_sessions_finish(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_finish.token);
    v_id uuid := api.uuid_field(focus_sessions_finish.params, 'id');
    v_body jsonb := api.only_keys(focus_sessions_finish.body, array['ended_at']);
    v_ended timestamptz := api.time_field(v_body, 'ended_at', required => false);
    v_session app.focus_sessions;
    v_end timestamptz;
begin
    v_session := api.own_session(v_user_id, v_id);
    if v_session.ended_at is not null then
        -- Finishing twice answers the same, what the finish unlocked included (an abandoned one: as
        -- abandoned, having unlocked nothing).
        return api.session_answer(v_id, v_user_id, first => false);
    end if;
    v_end := api.live_end(v_session);
    if v_ended is not null then
        if v_ended <= v_session.started_at then
            perform api.fail(422, 'invalid_session', 'ended_at must be after the session started.');
        end if;
        if v_ended > now() + (select e.clock_skew from app.economy_settings e) then
            perform api.fail(422, 'invalid_session', 'ended_at is in the future.');
        end if;
        v_end := least(v_end, v_ended);
    end if;
    update app.focus_sessions s
    set ended_at = v_end, occupies = tstzrange(s.started_at, v_end),
        minutes = floor(extract(epoch from v_end - s.started_at) / 60)::integer
    where s.id = v_id;
    perform api.pay_session(v_id);
    return api.session_answer(v_id, v_user_id, first => true);
end
$$;
grant execute on function api.focus_sessions_finish(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_finish(text, jsonb, jsonb) is
    'POST /focus-sessions/{id}/finish {ended_at?}: ends now or at ended_at (after the start, not in the future: '
    '422 invalid_session), never past the plan; coins by the minutes counted, paid once; finishing again '
    'answers the same, achievements_unlocked included; someone else''s id is 404 session_not_found.';
insert into api.endpoints (method, path, function, body, errors)
values ('POST', '/focus-sessions/{id}/finish', 'api.focus_sessions_finish', 'optional_json',
        '{account_suspended, invalid_field, invalid_session, session_not_found}');

-- POST /focus-sessions {id, started_at, ended_at, planned_minutes?, tag?}: a session the phone recorded.
-- Guarantees, before anything is written (422 invalid_session, nothing written or paid): it ends
-- after it starts, not in the future (past clock_skew), within max_session_minutes and
-- offline_max_age (for a guest or an account younger than new_account_offline_age: back to the
-- account's creation, 2026-12-07, docs/sessions.md; coins capped per day as ever); and it starts no earlier than the account was made (app.users.created_at,
-- 2026-12-06; the trigger focus_sessions_after_account holds the same rule for every write),
-- so a new account cannot claim days from before it existed. The same id again answers the
-- same session (200); else 409 session_conflict or session_overlap. Coins by api.pay_session.
create function api.focus_sessions_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_create.token);
    v_body jsonb := api.only_keys(focus_sessions_create.body, array['id', 'started_at', 'ended_at', 'planned_minutes', 'tag']);
    v_id uuid := api.uuid_field(v_body, 'id');
    v_started timestamptz := api.time_field(v_body, 'started_at');
    v_ended timestamptz := api.time_field(v_body, 'ended_at');
    v_planned integer := api.integer_field(v_body, 'planned_minutes', 1, 1440, required => false);
    v_tag text := api.session_tag(v_body);
    v_settings app.economy_settings;
    v_existing app.focus_sessions;
begin
    select * into v_settings from app.economy_settings;
    if v_ended <= v_started then
        perform api.fail(422, 'invalid_session', 'The session ends before it starts.');
    end if;
    if v_ended > now() + v_settings.clock_skew then
        perform api.fail(422, 'invalid_session', 'The session ends in the future.');
    end if;
    if v_ended - v_started > make_interval(mins => v_settings.max_session_minutes) then
        perform api.fail(422, 'invalid_session',
                         format('A session lasts at most %s minutes.', v_settings.max_session_minutes));
    end if;
    if v_ended < now() - v_settings.offline_max_age
       and not exists (select from app.users u where u.id = v_user_id
                       and (u.email is null or u.created_at > now() - v_settings.new_account_offline_age)) then
        perform api.fail(422, 'invalid_session', 'The session is too old to be recorded.');
    end if;
    if v_started < (select u.created_at from app.users u where u.id = v_user_id) then
        perform api.fail(422, 'invalid_session', 'The session starts before your account was made.');
    end if;

    perform api.lock_user(v_user_id);
    -- The same id again: the same session answers 200 with the first answer's body, what it
    -- unlocked included; anything else is a conflict. A replay may leave out the optional
    -- planned_minutes and tag (a phone that lost them in its queue). An id moved past the
    -- horizon (0055) stays taken: a session that old is never recorded again, so a conflict
    -- (the live table first: a move committing between the two reads is seen in the archive).
    select * into v_existing from app.focus_sessions s where s.id = v_id;
    if v_existing.id is null and exists (select from app.focus_sessions_archived a where a.id = v_id) then
        perform api.fail(409, 'session_conflict', 'A different session was already recorded with this id.');
    end if;
    if v_existing.id is not null then
        if v_existing.user_id = v_user_id and v_existing.source = 'offline'
           and v_existing.started_at = v_started and v_existing.ended_at = v_ended
           and (v_planned is null or v_existing.planned_minutes is not distinct from v_planned)
           and (v_tag is null or v_existing.tag is not distinct from v_tag) then
            return api.session_answer(v_id, v_user_id, first => false, status => 200);
        end if;
        perform api.fail(409, 'session_conflict', 'A different session was already recorded with this id.');
    end if;

    begin
        insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, ended_at, occupies, minutes, tag)
        values (v_id, v_user_id, 'offline', v_planned, v_started, v_ended, tstzrange(v_started, v_ended),
                floor(extract(epoch from v_ended - v_started) / 60)::integer, v_tag);
    exception
        when exclusion_violation then
            perform api.fail(409, 'session_overlap', 'Another session already covers part of this time.');
        when unique_violation then  -- another user's session has this id
            perform api.fail(409, 'session_conflict', 'A different session was already recorded with this id.');
    end;
    perform api.pay_session(v_id);
    return api.session_answer(v_id, v_user_id, first => true);
end
$$;
grant execute on function api.focus_sessions_create(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_create(text, jsonb, jsonb) is
    'POST /focus-sessions: idempotent by the phone''s id (same body, planned_minutes optional: 200 with the first answer''s '
    'body, achievements_unlocked included, nothing earned twice; other body: 409 '
    'session_conflict); 409 session_overlap; 422 invalid_session (future, reversed, too long, too old, started before '
    'the account was made).';
insert into api.endpoints (method, path, function, status, body, errors)
values ('POST', '/focus-sessions', 'api.focus_sessions_create', 201, 'json',
        '{account_suspended, invalid_field, invalid_session, session_conflict, session_overlap}');

-- GET /focus-sessions?from=&to=&limit=&cursor=: the sessions started in [from, to) (default the
-- last 30 days), newest first (started_at, then id, both descending, read from
-- focus_sessions_user_start, migration 0022, and for the sessions archived past the horizon
-- from focus_sessions_archived_user_start, 0055), at most `limit` (1 to 500; 500 when absent: 30
-- days of sixteen sessions a day come whole, as before pages), and next_cursor (null on the
-- last page). total_minutes and total_coins_earned add up the whole range, not the page, so
-- every page answers the same totals.
create function api.focus_sessions_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_list.token);
    v_from timestamptz := coalesce(api.time_field(focus_sessions_list.params, 'from', required => false), now() - interval '30 days');
    v_to timestamptz := coalesce(api.time_field(focus_sessions_list.params, 'to', required => false), 'infinity');
    v_limit integer := api.page_limit(focus_sessions_list.params, 500, 500);
    v_key jsonb := api.cursor_decode(focus_sessions_list.params, 'sessions', array['time', 'uuid']);
    v_page app.focus_sessions[];
begin
    -- The live sessions and those archived past the horizon (0055), each an index range read
    -- of at most a page and one, then the newest of both: never a sort of the whole range.
    select coalesce(array_agg(p.s order by (p.s).started_at desc, (p.s).id desc), '{}') into v_page
    from (select b.s
          from ((select s from app.focus_sessions s
                 where s.user_id = v_user_id and s.started_at >= v_from and s.started_at < v_to
                   and (v_key is null or (s.started_at, s.id) < ((v_key ->> 0)::timestamptz, (v_key ->> 1)::uuid))
                 order by s.started_at desc, s.id desc
                 limit v_limit + 1)
                union all
                (select row(a.*)::app.focus_sessions from app.focus_sessions_archived a
                 where a.user_id = v_user_id and a.started_at >= v_from and a.started_at < v_to
                   and (v_key is null or (a.started_at, a.id) < ((v_key ->> 0)::timestamptz, (v_key ->> 1)::uuid))
                 order by a.started_at desc, a.id desc
                 limit v_limit + 1)) b (s)
          order by (b.s).started_at desc, (b.s).id desc
          limit v_limit + 1) p;
    return (
        select api.ok(jsonb_build_object(
            'sessions', coalesce((select jsonb_agg(api.session_json(p) order by p.started_at desc, p.id desc)
                                  from unnest(v_page[1:v_limit]) p), '[]'),
            'next_cursor', case when cardinality(v_page) > v_limit
                                then api.cursor_encode('sessions', jsonb_build_array(api.iso(v_page[v_limit].started_at),
                                                                                     v_page[v_limit].id)) end,
            'total_minutes', coalesce(sum(s.minutes), 0),
            'total_coins_earned', coalesce(sum(s.coins_earned), 0)))
        from app.user_sessions(v_user_id) s
        where s.started_at >= v_from and s.started_at < v_to);
end
$$;
grant execute on function api.focus_sessions_list(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_list(text, jsonb, jsonb) is
    'GET /focus-sessions: the caller''s sessions started in [from, to), newest first, paged (limit 1 to 500, 500 by '
    'default; cursor, next_cursor; 400 invalid_cursor), with the totals of the whole range.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/focus-sessions', 'api.focus_sessions_list',
        '{account_suspended, invalid_cursor, invalid_field}');

-- GET /me/stats: days are the user's own days (settings.time_zone) of a session's end; weeks
-- start on Monday. daily_goal_minutes is the Profile's; daily_goal_reached whether today's
-- minutes reach it (null without a goal).
-- The streaks are app.user_streak's (sql/app/130_streaks.sql): a run of consecutive days with
-- focused minutes or covered by a streak freeze, counting the days with minutes; the current
-- one is alive while its last day is today or yesterday. Reading applies the freezes due
-- (volatile for that), then shows the freezes held and the days they covered in the current
-- streak.
create function api.me_stats_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_stats_get.token);
    v_time_zone text := api.user_time_zone(v_user_id);
    v_today date := api.local_date(v_time_zone, now());
    v_goal integer := (select u.daily_goal_minutes from app.users u where u.id = v_user_id);
    v_streak record;
begin
    select * into v_streak from app.user_streak(v_user_id);
    return (
        with days as (
            select api.local_date(v_time_zone, s.ended_at) as day, sum(s.minutes) as minutes, sum(s.coins_earned) as coins
            from app.user_sessions(v_user_id) s
            where s.ended_at is not null
            group by 1
        )
        select api.ok(s.body, etag => md5(s.body::text))
        from (select jsonb_build_object(
            'today_minutes', coalesce((select sum(minutes) from days where day = v_today), 0),
            'daily_goal_minutes', v_goal,
            'daily_goal_reached', coalesce((select sum(minutes) from days where day = v_today), 0) >= v_goal,
            'week_minutes', coalesce((select sum(minutes) from days where day >= date_trunc('week', v_today)::date), 0),
            'total_minutes', coalesce((select sum(minutes) from days), 0),
            'total_coins_earned', coalesce((select sum(coins) from days), 0),
            'current_streak_days', v_streak.current_days,
            'longest_streak_days', v_streak.longest_days)
            || api.streak_freezes_json(v_user_id, v_streak.current_days) as body) s);
end
$$;
grant execute on function api.me_stats_get(text, jsonb, jsonb) to focus_api;
comment on function api.me_stats_get(text, jsonb, jsonb) is
    'GET /me/stats: minutes today (and the daily goal, reached or not), this week and in all, coins earned, current and longest streak (the user''s own days, '
    'freeze-aware: applies the freezes due), freezes held and the days they covered; the ETag is a digest of the answer.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/stats', 'api.me_stats_get', '{account_suspended}');

-- A calendar date query parameter, YYYY-MM-DD (2026-02-30 is refused); null when absent.
-- 400 invalid_field otherwise.
create function api.date_param(params jsonb, name text)
returns date
language plpgsql volatile
as $$
declare
    v_text text := date_param.params ->> date_param.name;
begin
    if v_text is null then
        return null;
    end if;
    if v_text ~ '^\d{4}-\d\d-\d\d$' then
        begin
            if to_char(v_text::date, 'YYYY-MM-DD') = v_text then
                return v_text::date;
            end if;
        exception when data_exception then
            null;
        end;
    end if;
    perform api.fail_field(date_param.name, 'must be a calendar date, YYYY-MM-DD.');
    return null;  -- not reached: api.fail_field raises
end
$$;

-- [from, to] from the query (both days included): 400 invalid_date_range when from is after to
-- or the range holds more than `max_days` days (no bound when null).
create function api.date_range(params jsonb, default_from date, default_to date, max_days integer)
returns daterange
language plpgsql volatile
as $$
declare
    v_from date := coalesce(api.date_param(date_range.params, 'from'), date_range.default_from);
    v_to date := coalesce(api.date_param(date_range.params, 'to'), date_range.default_to);
begin
    if v_from > v_to then
        perform api.fail(400, 'invalid_date_range', 'from is after to.');
    end if;
    if date_range.max_days is not null and v_to - v_from + 1 > date_range.max_days then
        perform api.fail(400, 'invalid_date_range', format('A range holds at most %s days.', date_range.max_days));
    end if;
    return daterange(v_from, v_to, '[]');
end
$$;

-- GET /me/stats/daily?from=&to=: for charts, one row per calendar day of the person's time zone
-- (settings.time_zone, as GET /me/stats counts them) from `from` to `to`, both included (the
-- last 7 days up to today when absent; at most 366 days), each {date, minutes, sessions}: the
-- minutes of the sessions that ended that local day and how many they were (abandoned ones left
-- out). A day with nothing is there with zeros. A local day is as long as its wall clock says
-- (23 or 25 hours across daylight saving). Answers {time_zone, from, to, days, total_minutes,
-- total_sessions}. 400 invalid_field for a date that is not YYYY-MM-DD, 400 invalid_date_range.
create function api.me_stats_daily_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_stats_daily_get.token);
    v_time_zone text := api.user_time_zone(v_user_id);
    v_today date := api.local_date(v_time_zone, now());
    v_range daterange := api.date_range(me_stats_daily_get.params, v_today - 6, v_today, 366);
    v_from date := lower(v_range);
    v_to date := upper(v_range) - 1;
begin
    return (
        with ended as (
            select api.local_date(v_time_zone, s.ended_at) as day, s.minutes
            from app.user_sessions(v_user_id) s
            where not s.abandoned
              and s.ended_at >= v_from::timestamp at time zone v_time_zone
              and s.ended_at < (v_to + 1)::timestamp at time zone v_time_zone
        ),
        days as (
            select d::date as day, coalesce(sum(e.minutes), 0)::integer as minutes, count(e.day)::integer as sessions
            from generate_series(v_from, v_to, interval '1 day') d
            left join ended e on e.day = d::date
            group by 1
        )
        select api.ok(jsonb_build_object(
            'time_zone', v_time_zone, 'from', v_from, 'to', v_to,
            'days', jsonb_agg(jsonb_build_object('date', days.day, 'minutes', days.minutes, 'sessions', days.sessions)
                              order by days.day),
            'total_minutes', sum(days.minutes), 'total_sessions', sum(days.sessions)))
        from days);
end
$$;
grant execute on function api.me_stats_daily_get(text, jsonb, jsonb) to focus_api;
comment on function api.me_stats_daily_get(text, jsonb, jsonb) is
    'GET /me/stats/daily: minutes and sessions per local day from `from` to `to` (7 days to today by default, at most 366), '
    'days with nothing as zeros; 400 invalid_field, invalid_date_range.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/stats/daily', 'api.me_stats_daily_get',
        '{account_suspended, invalid_date_range, invalid_field}');

-- GET /me/stats/tags?from=&to=: minutes and sessions by tag, over the sessions that ended on a
-- local day from `from` to `to` (both included, any length; every session when both are
-- absent), abandoned ones left out. Answers {tags: [{tag, minutes, sessions}]}, most minutes
-- first (then by tag); untagged sessions are the one row with tag null. 400 invalid_field,
-- invalid_date_range as GET /me/stats/daily.
create function api.me_stats_tags_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_stats_tags_get.token);
    v_time_zone text := api.user_time_zone(v_user_id);
    v_range daterange := api.date_range(me_stats_tags_get.params, '-infinity', 'infinity', null);
begin
    return (
        select api.ok(jsonb_build_object('tags', coalesce(jsonb_agg(jsonb_build_object(
                   'tag', t.tag, 'minutes', t.minutes, 'sessions', t.sessions) order by t.minutes desc, t.tag nulls last), '[]')))
        from (select s.tag, coalesce(sum(s.minutes), 0)::integer as minutes, count(*)::integer as sessions
              from app.user_sessions(v_user_id) s
              where s.ended_at is not null and not s.abandoned
                and api.local_date(v_time_zone, s.ended_at) <@ v_range
              group by s.tag) t);
end
$$;
grant execute on function api.me_stats_tags_get(text, jsonb, jsonb) to focus_api;
comment on function api.me_stats_tags_get(text, jsonb, jsonb) is
    'GET /me/stats/tags: minutes and sessions by tag (untagged: tag null), most minutes first, over a range of local '
    'days (all by default); 400 invalid_field, invalid_date_range.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/stats/tags', 'api.me_stats_tags_get',
        '{account_suspended, invalid_date_range, invalid_field}');

-- GET /focus-sessions/current: {session: Session + {ends_at}, now}, or
-- 204 when no live session runs. ends_at is where finishing stops counting (the plan, or the
-- maximum length); `now` is the server's clock, so a relaunched phone shows the right time
-- left whatever its own clock says.
create function api.focus_sessions_current_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_current_get.token);
    v_session app.focus_sessions;
    v_max integer;
begin
    select * into v_session from app.focus_sessions s where s.user_id = v_user_id and s.ended_at is null;
    if v_session.id is null then
        return api.ok(null, status => 204);  -- the route's own status too
    end if;
    select e.max_session_minutes into v_max from app.economy_settings e;
    return api.ok(jsonb_build_object(
        'session', api.session_json(v_session) || jsonb_build_object(
            'ends_at', api.iso(v_session.started_at + make_interval(mins => least(coalesce(v_session.planned_minutes, v_max), v_max)))),
        'now', api.iso(now())), status => 200);
end
$$;
grant execute on function api.focus_sessions_current_get(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_current_get(text, jsonb, jsonb) is
    'GET /focus-sessions/current: the running live session with its plan and the server''s time, or 204.';
insert into api.endpoints (method, path, function, status, errors)
values ('GET', '/focus-sessions/current', 'api.focus_sessions_current_get', 204, '{account_suspended}');

-- POST /focus-sessions/{id}/abandon: ends a running live session without coins. It records 0
-- minutes (abandoned = true), so stats, streaks and leaderboards never count it; the time it
-- held stays held (up to where finishing would have stopped). It can be rated like any ended
-- session. Abandoning again answers the same; a session that was finished (or recorded
-- offline) is 409 session_finished.
create function api.focus_sessions_abandon(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(focus_sessions_abandon.token);
    v_id uuid := api.uuid_field(focus_sessions_abandon.params, 'id');
    v_session app.focus_sessions;
    v_end timestamptz;
begin
    v_session := api.own_session(v_user_id, v_id);
    if v_session.abandoned then
        return api.session_reply(v_id);
    end if;
    if v_session.ended_at is not null then
        perform api.fail(409, 'session_finished', 'The session already ended; only a running session can be abandoned.');
    end if;
    v_end := api.live_end(v_session);
    update app.focus_sessions s
    set ended_at = v_end, occupies = tstzrange(s.started_at, v_end), minutes = 0, abandoned = true
    where s.id = v_id;
    return api.session_reply(v_id);
end
$$;
grant execute on function api.focus_sessions_abandon(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_abandon(text, jsonb, jsonb) is
    'POST /focus-sessions/{id}/abandon: ends a running session with 0 minutes and no coins; again: the same; '
    '409 session_finished for an ended one; 404 session_not_found.';
insert into api.endpoints (method, path, function, errors)
values ('POST', '/focus-sessions/{id}/abandon', 'api.focus_sessions_abandon',
        '{account_suspended, invalid_field, session_finished, session_not_found}');

-- The problem+json body of an error raised by api.fail (as the HTTP layer writes it), for
-- answers that carry several results (the batch).
create function api.problem_json(status integer, code text, message text, extra text)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('type', 'urn:focus-island:problem:' || problem_json.code,
                              'title', case problem_json.status
                                  when 400 then 'Bad Request' when 401 then 'Unauthorized' when 403 then 'Forbidden'
                                  when 404 then 'Not Found' when 409 then 'Conflict' when 413 then 'Content Too Large'
                                  when 422 then 'Unprocessable Content' when 429 then 'Too Many Requests'
                                  else 'HTTP ' || problem_json.status end,
                              'status', problem_json.status, 'detail', problem_json.message, 'code', problem_json.code)
           || case when problem_json.extra ~ '^\{.*\}$' then problem_json.extra::jsonb else '{}' end
$$;

-- POST /focus-sessions/batch {sessions: [{id, started_at, ended_at, planned_minutes?, rating?}, …]}
-- An offline backlog in one call: at most 100 sessions, each recorded as POST /focus-sessions
-- would, then rated as POST /focus-sessions/{id}/rating would when it carries a rating. Each
-- item runs in its own subtransaction (a plpgsql exception block): one that fails rolls back
-- alone, session and rating together, and reports its problem. Answer: {results: [...]} in the
-- request's order, each {kind: 'applied', status, body} (201 new, 200 already recorded; body
-- {session, balance, achievements_unlocked} as POST /focus-sessions answers it, a rated item's
-- session read again after its rating, plus tip) or {kind: 'rejected', status, problem} (`kind`:
-- the document's discriminator, 2026-12-07). A replayed batch earns nothing
-- twice and answers each item as the first batch did: the ids make each item idempotent (the
-- record's answer, balance and achievements included, is the first one), and the same rating
-- returns the same tip.
-- Only problems the API raises (SQLSTATE PTnnn) are per item; anything else fails the batch.
create function api.focus_sessions_batch_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb;
    v_sessions jsonb;
    v_item jsonb;
    v_created api.reply;
    v_rated api.reply;
    v_result jsonb;
    v_results jsonb := '[]'::jsonb;
    v_state text;
    v_message text;
    v_code text;
    v_extra text;
begin
    perform api.authenticate(focus_sessions_batch_create.token);
    v_body := api.only_keys(focus_sessions_batch_create.body, array['sessions']);
    v_sessions := api.json_field(v_body, 'sessions', 'array', true, 'an array of sessions');
    if jsonb_array_length(v_sessions) not between 1 and 100 then
        perform api.fail_field('sessions', 'must hold 1 to 100 sessions.');
    end if;
    for v_item in select e.value from jsonb_array_elements(v_sessions) as e(value) loop
        begin
            if jsonb_typeof(v_item) <> 'object' then
                perform api.fail_field('sessions', 'must hold only session objects.');
            end if;
            -- The rating is checked first, so an item with a bad rating records nothing.
            if v_item ? 'rating' then
                perform api.choice(api.text_field(v_item, 'rating', required => false), 'rating', array['good', 'fine', 'bad']);
            end if;
            v_created := api.focus_sessions_create(focus_sessions_batch_create.token, '{}', v_item - 'rating');
            v_result := jsonb_build_object('kind', 'applied', 'status', coalesce(v_created.status, 201), 'body', v_created.body);
            if v_item ->> 'rating' is not null then
                v_rated := api.focus_sessions_rate(focus_sessions_batch_create.token,
                                                   jsonb_build_object('id', v_item ->> 'id'),
                                                   jsonb_build_object('rating', v_item ->> 'rating'));
                v_result := jsonb_set(v_result, '{body}', v_created.body || jsonb_build_object(
                                                              'session', (api.session_reply((v_item ->> 'id')::uuid)).body -> 'session',
                                                              'tip', v_rated.body -> 'tip'));
            end if;
        exception when sqlstate 'PT400' or sqlstate 'PT404' or sqlstate 'PT409' or sqlstate 'PT422' then
            get stacked diagnostics v_state = returned_sqlstate, v_message = message_text,
                                    v_code = pg_exception_detail, v_extra = pg_exception_hint;
            v_result := jsonb_build_object('kind', 'rejected', 'status', substr(v_state, 3)::integer,
                                           'problem', api.problem_json(substr(v_state, 3)::integer, v_code, v_message, v_extra));
        end;
        v_results := v_results || jsonb_build_array(v_result);
    end loop;
    return api.ok(jsonb_build_object('results', v_results));
end
$$;
grant execute on function api.focus_sessions_batch_create(text, jsonb, jsonb) to focus_api;
comment on function api.focus_sessions_batch_create(text, jsonb, jsonb) is
    'POST /focus-sessions/batch: up to 100 offline sessions, each with an optional rating, one result per item '
    '({status, body} or {status, problem}); one bad item rolls back alone; a replay earns nothing twice.';
insert into api.endpoints (method, path, function, body, localized, errors)
values ('POST', '/focus-sessions/batch', 'api.focus_sessions_batch_create', 'json', true,
        '{account_suspended, invalid_field}');
