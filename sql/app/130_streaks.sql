-- Streaks and streak freezes: the person's streak over their own local days (app.users.time_zone)
-- and the freezes that cover missed days, applied lazily (when the streak is read and when a
-- session ends), never by a nightly job. Bound in 0029_streak_freezes.sql. docs/streaks.md.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Lets the freezes a person holds cover the missed local days before `before` (default: their
-- today), as a nightly job would have done at each midnight: walking from the last day that
-- kept the streak alive (a day with focused minutes, or a day already covered), each missed day
-- takes the oldest held freeze bought before that day ended; the first missed day no such
-- freeze covers ends the walk (the streak broke there, and no later purchase mends it).
-- So a gap longer than the freezes held breaks the streak after using them, as it would have
-- night by night. Guarantees: idempotent; a freeze covers one day and a day takes one freeze
-- (constraints on app.streak_freezes); racing callers serialize on the person's row, taken
-- only when there is a day to cover, so a read with nothing to do writes and locks nothing.
-- Each use writes one streak.frozen event to the person. Returns the number of freezes used.
create or replace function app.apply_streak_freezes(p_user_id uuid, p_before date default null)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_time_zone text;
    v_before date;
    v_last date;
    v_day date;
    v_freeze uuid;
    v_used integer := 0;
begin
    if not exists (select from app.streak_freezes f where f.user_id = p_user_id and f.slot is not null) then
        return 0;
    end if;
    for v_attempt in 1 .. 2 loop
        -- The first pass reads without a lock; the second (only when there is work) re-reads
        -- under the person's lock, which a racing caller held until it committed its uses.
        select coalesce(u.time_zone, 'UTC') into v_time_zone from app.users u where u.id = p_user_id;
        v_before := coalesce(p_before, (now() at time zone v_time_zone)::date);
        select max(d) into v_last
        from (select max((s.ended_at at time zone v_time_zone)::date) as d
              from app.user_sessions(p_user_id) s
              where s.minutes > 0
                and s.ended_at < v_before::timestamp at time zone v_time_zone
              union all
              select max(f.covered_day) from app.streak_freezes f
              where f.user_id = p_user_id and f.covered_day < v_before) alive;
        if v_last is null or v_last >= v_before - 1 then
            return 0;
        end if;
        exit when v_attempt = 2;
        perform from app.users u where u.id = p_user_id for update;
    end loop;
    v_day := v_last + 1;
    while v_day < v_before loop
        select f.id into v_freeze
        from app.streak_freezes f
        where f.user_id = p_user_id and f.slot is not null
          and f.bought_at < (v_day + 1)::timestamp at time zone v_time_zone
        order by f.bought_at, f.id
        limit 1;
        exit when v_freeze is null;
        update app.streak_freezes f set slot = null, covered_day = v_day, used_at = now() where f.id = v_freeze;
        insert into app.events (user_id, type, payload)
        values (p_user_id, 'streak.frozen',
                jsonb_build_object('day', v_day,
                                   'freezes_held', (select count(*) from app.streak_freezes f
                                                    where f.user_id = p_user_id and f.slot is not null)));
        v_used := v_used + 1;
        v_freeze := null;
        v_day := v_day + 1;
    end loop;
    return v_used;
end
$$;
comment on function app.apply_streak_freezes(uuid, date) is
    'Covers the missed local days before p_before (default: the person''s today) with the freezes they held, as a '
    'nightly job would have; idempotent, locks the person only when a day is to be covered. Returns freezes used.';

-- The person's current and longest streak, in their own local days, after applying the freezes
-- due (app.apply_streak_freezes: this writes, so call it from volatile code). A streak is a run
-- of consecutive days each with focused minutes or covered by a freeze; its length counts the
-- days with minutes only (a frozen day keeps the streak, it does not lengthen it). The current
-- streak is the run whose last day is today or yesterday, else 0.
create or replace function app.user_streak(p_user_id uuid)
returns table (current_days integer, longest_days integer)
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_time_zone text;
    v_today date;
begin
    perform app.apply_streak_freezes(p_user_id);
    select coalesce(u.time_zone, 'UTC') into v_time_zone from app.users u where u.id = p_user_id;
    v_today := (now() at time zone v_time_zone)::date;
    return query
        with days as (
            select (s.ended_at at time zone v_time_zone)::date as day, true as focused
            from app.user_sessions(p_user_id) s
            where s.ended_at is not null and s.minutes > 0
            union
            select f.covered_day, false from app.streak_freezes f
            where f.user_id = p_user_id and f.covered_day is not null
        ),
        alive as (
            select d.day, bool_or(d.focused) as focused from days d group by d.day
        ),
        runs as (
            select max(n.day) as last_day, (count(*) filter (where n.focused))::integer as length
            from (select a.day, a.focused, a.day - (row_number() over (order by a.day))::integer as run
                  from alive a) n
            group by n.run
        )
        select coalesce((select r.length from runs r where r.last_day >= v_today - 1), 0),
               coalesce((select max(r.length) from runs r), 0);
end
$$;
comment on function app.user_streak(uuid) is
    'The person''s current and longest streak in their own local days, freeze-aware: applies the freezes due, then '
    'counts runs of days with minutes or a freeze, a frozen day keeping a streak without lengthening it.';

-- A session that ends with minutes: the missed days before its local day are decided first
-- (the freezes held then cover them), so the day it adds joins the streak a freeze kept alive.
-- Runs as whoever writes the session, hence security definer.
create or replace function app.focus_sessions_streak_freezes()
returns trigger
language plpgsql
security definer
set search_path = public, pg_temp
as $$
begin
    perform app.apply_streak_freezes(new.user_id,
                                     (new.ended_at at time zone coalesce((select u.time_zone from app.users u
                                                                          where u.id = new.user_id), 'UTC'))::date);
    return null;
end
$$;
