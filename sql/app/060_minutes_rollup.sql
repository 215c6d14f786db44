-- The per-user day and week minutes rollup kept by triggers. Bound in 0012_minutes_rollup.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Adds `minutes` (negative to take away) to the user's day and week holding `ended_at`.
create or replace function app.add_rollup_minutes(user_id uuid, ended_at timestamptz, minutes integer)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_local timestamp;
begin
    if add_rollup_minutes.minutes = 0 or add_rollup_minutes.ended_at is null then
        return;
    end if;
    select add_rollup_minutes.ended_at at time zone u.time_zone into v_local
    from app.users u where u.id = add_rollup_minutes.user_id and u.deleted_at is null;
    if v_local is null then
        return;
    end if;
    if add_rollup_minutes.minutes > 0 then
        insert into app.daily_minutes as d (user_id, day, minutes)
        values (add_rollup_minutes.user_id, v_local::date, add_rollup_minutes.minutes)
        on conflict on constraint daily_minutes_pkey do update set minutes = d.minutes + excluded.minutes;
        insert into app.weekly_minutes as w (user_id, week, minutes)
        values (add_rollup_minutes.user_id, date_trunc('week', v_local)::date, add_rollup_minutes.minutes)
        on conflict on constraint weekly_minutes_pkey do update set minutes = w.minutes + excluded.minutes;
        return;
    end if;
    -- Taking minutes away: the row keeps what is left, or goes when nothing is.
    update app.daily_minutes d set minutes = d.minutes + add_rollup_minutes.minutes
    where d.user_id = add_rollup_minutes.user_id and d.day = v_local::date and d.minutes + add_rollup_minutes.minutes > 0;
    if not found then
        delete from app.daily_minutes d where d.user_id = add_rollup_minutes.user_id and d.day = v_local::date;
    end if;
    update app.weekly_minutes w set minutes = w.minutes + add_rollup_minutes.minutes
    where w.user_id = add_rollup_minutes.user_id and w.week = date_trunc('week', v_local)::date
      and w.minutes + add_rollup_minutes.minutes > 0;
    if not found then
        delete from app.weekly_minutes w where w.user_id = add_rollup_minutes.user_id and w.week = date_trunc('week', v_local)::date;
    end if;
end
$$;

create or replace function app.focus_sessions_rollup()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op in ('UPDATE', 'DELETE') then
        perform app.add_rollup_minutes(old.user_id, old.ended_at, -coalesce(old.minutes, 0));
    end if;
    if tg_op in ('INSERT', 'UPDATE') then
        perform app.add_rollup_minutes(new.user_id, new.ended_at, coalesce(new.minutes, 0));
    end if;
    return null;
end
$$;

-- Rebuilds one user's rows from their sessions (none once the account is deleted).
-- The count rows (0013) the user moves between are locked first, all of them and in key order,
-- creating those that do not exist yet: the deferred triggers that move the counts at commit
-- then wait for nobody. Without it, two users of one shard changing time zones at once each
-- held a key the other's later rows needed (a deadlock PostgreSQL ends after deadlock_timeout,
-- and never under libfaketime, whose epoll_wait does not wake for the timer: the tests' moved
-- clocks hung on it). 2026-12-02.
create or replace function app.rebuild_rollup(user_id uuid)
returns void
language sql
set search_path = public, pg_temp
as $$
    insert into app.daily_minutes_counts as c (day, minutes, shard, users)
    select k.day, k.minutes, app.counter_shard(rebuild_rollup.user_id), 0
    from (select d.day, d.minutes from app.daily_minutes d where d.user_id = rebuild_rollup.user_id
          union
          select (s.ended_at at time zone u.time_zone)::date, sum(s.minutes)::integer
          from app.user_sessions(rebuild_rollup.user_id) s join app.users u on u.id = s.user_id
          where u.deleted_at is null and s.minutes > 0
          group by 1) k
    order by k.day, k.minutes
    on conflict on constraint daily_minutes_counts_pkey do update set users = c.users;
    insert into app.weekly_minutes_counts as c (week, minutes, shard, users)
    select k.week, k.minutes, app.counter_shard(rebuild_rollup.user_id), 0
    from (select w.week, w.minutes from app.weekly_minutes w where w.user_id = rebuild_rollup.user_id
          union
          select date_trunc('week', s.ended_at at time zone u.time_zone)::date, sum(s.minutes)::integer
          from app.user_sessions(rebuild_rollup.user_id) s join app.users u on u.id = s.user_id
          where u.deleted_at is null and s.minutes > 0
          group by 1) k
    order by k.week, k.minutes
    on conflict on constraint weekly_minutes_counts_pkey do update set users = c.users;
    delete from app.daily_minutes d where d.user_id = rebuild_rollup.user_id;
    delete from app.weekly_minutes w where w.user_id = rebuild_rollup.user_id;
    insert into app.daily_minutes (user_id, day, minutes)
    select s.user_id, (s.ended_at at time zone u.time_zone)::date, sum(s.minutes)
    from app.user_sessions(rebuild_rollup.user_id) s join app.users u on u.id = s.user_id
    where u.deleted_at is null and s.minutes > 0
    group by 1, 2;
    insert into app.weekly_minutes (user_id, week, minutes)
    select s.user_id, date_trunc('week', s.ended_at at time zone u.time_zone)::date, sum(s.minutes)
    from app.user_sessions(rebuild_rollup.user_id) s join app.users u on u.id = s.user_id
    where u.deleted_at is null and s.minutes > 0
    group by 1, 2;
$$;

create or replace function app.users_rollup()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.rebuild_rollup(new.id);
    return null;
end
$$;
