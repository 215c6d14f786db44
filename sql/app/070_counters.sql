-- The boards' rank histogram and the UTC-day totals, kept by constraint triggers deferred to
-- commit. Bound in 0013_counters.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- The shard of a user's count rows: 0-7, from the last byte of the id (random in v4 UUIDs).
-- No `set search_path`: a function with one is never inlined, and each call saves and restores
-- the setting (about 100 µs a row in a recount of 66,000 users); its body names only built-ins.
create or replace function app.counter_shard(user_id uuid)
returns smallint
language sql immutable parallel safe
as $$ select (get_byte(uuid_send(counter_shard.user_id), 15) % 8)::smallint $$;
comment on function app.counter_shard(uuid) is
    'The shard (0-7) of a user''s rows in the count tables of migration 0013: spreads the users of one key over 8 rows.';

-- One rollup row arrives, leaves or changes: one user fewer at the old minutes, one more at the
-- new (a row of each, in ascending order; nothing when the key and the shard stay the same).
create or replace function app.daily_minutes_count()
returns trigger
language plpgsql security definer
set search_path = public, pg_temp
as $$
declare
    v_old_first boolean := tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.day, old.minutes) < (new.day, new.minutes));
begin
    if tg_op = 'UPDATE' and (old.day, old.minutes, old.user_id) = (new.day, new.minutes, new.user_id) then
        return null;
    end if;
    -- The lower key first. (A decrement is an update: an upsert of -1 would fail the CHECK on
    -- its proposed row before it met the conflict.)
    if v_old_first then
        update app.daily_minutes_counts c set users = c.users - 1
        where c.day = old.day and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.daily_minutes_counts has no row for % % %', old.day, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    if tg_op <> 'DELETE' then
        insert into app.daily_minutes_counts as c (day, minutes, shard, users)
        values (new.day, new.minutes, app.counter_shard(new.user_id), 1)
        on conflict on constraint daily_minutes_counts_pkey do update set users = c.users + 1;
    end if;
    if tg_op = 'UPDATE' and not v_old_first then
        update app.daily_minutes_counts c set users = c.users - 1
        where c.day = old.day and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.daily_minutes_counts has no row for % % %', old.day, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    return null;
end
$$;

create or replace function app.weekly_minutes_count()
returns trigger
language plpgsql security definer
set search_path = public, pg_temp
as $$
declare
    v_old_first boolean := tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.week, old.minutes) < (new.week, new.minutes));
begin
    if tg_op = 'UPDATE' and (old.week, old.minutes, old.user_id) = (new.week, new.minutes, new.user_id) then
        return null;
    end if;
    -- The lower key first. (A decrement is an update: an upsert of -1 would fail the CHECK on
    -- its proposed row before it met the conflict.)
    if v_old_first then
        update app.weekly_minutes_counts c set users = c.users - 1
        where c.week = old.week and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.weekly_minutes_counts has no row for % % %', old.week, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    if tg_op <> 'DELETE' then
        insert into app.weekly_minutes_counts as c (week, minutes, shard, users)
        values (new.week, new.minutes, app.counter_shard(new.user_id), 1)
        on conflict on constraint weekly_minutes_counts_pkey do update set users = c.users + 1;
    end if;
    if tg_op = 'UPDATE' and not v_old_first then
        update app.weekly_minutes_counts c set users = c.users - 1
        where c.week = old.week and c.minutes = old.minutes and c.shard = app.counter_shard(old.user_id);
        if not found then
            raise exception 'app.weekly_minutes_counts has no row for % % %', old.week, old.minutes, app.counter_shard(old.user_id);
        end if;
    end if;
    return null;
end
$$;

-- `sessions` (1 or -1) finished sessions for the user on a UTC day; the day's active users
-- move when the user's first session of the day arrives or the last one leaves. Called by the
-- trigger of the release before 0095, and by app.count_user_day on a schema from before 0095 (an
-- upgrade replaying older migrations' data: sql/app is loaded before them).
create or replace function app.add_user_day(user_id uuid, day date, sessions integer)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_left integer;
begin
    if add_user_day.sessions > 0 then
        insert into app.session_user_days as d (user_id, day, sessions)
        values (add_user_day.user_id, add_user_day.day, add_user_day.sessions)
        on conflict on constraint session_user_days_pkey do update set sessions = d.sessions + excluded.sessions
        returning d.sessions into v_left;
        if v_left = add_user_day.sessions then
            insert into app.active_users_per_day as a (day, shard, users)
            values (add_user_day.day, app.counter_shard(add_user_day.user_id), 1)
            on conflict on constraint active_users_per_day_pkey do update set users = a.users + 1;
        end if;
        return;
    end if;
    update app.session_user_days d set sessions = d.sessions + add_user_day.sessions
    where d.user_id = add_user_day.user_id and d.day = add_user_day.day and d.sessions + add_user_day.sessions > 0;
    if not found then
        delete from app.session_user_days d where d.user_id = add_user_day.user_id and d.day = add_user_day.day;
        update app.active_users_per_day a set users = a.users - 1
        where a.day = add_user_day.day and a.shard = app.counter_shard(add_user_day.user_id);
    end if;
end
$$;

-- The client a person's activity is counted under now: their latest sign-in's (app.user_clients),
-- `unknown` when they have not signed in since 0095. No `set search_path` (as
-- app.counter_shard): it runs for every ledger row and names its tables with their schema.
create or replace function app.current_client(user_id uuid)
returns integer
language sql stable
as $$
    select coalesce((select c.client_id from app.user_clients c where c.user_id = current_client.user_id),
                    (select k.id from app.clients k where k.platform = 'unknown' and k.version = 'unknown'))
$$;

-- `sessions` (1 or -1) finished sessions of `minutes` minutes, `rated` of them rated, for the
-- user on a UTC day (0095). Does what app.add_user_day did (the user-day row, the day's active
-- users) and keeps the product rollups: the day's totals under the client the user-day was first
-- counted under (app.session_user_days.client_id: chosen when the day's first session arrives,
-- so the last one leaving takes from the same row), and when the user-day itself arrives or
-- leaves, the day's active people of that client, the sign-up cohort's D1/D7/D30 (the day is the
-- 1st, 7th or 30th after their sign-up's UTC day, app.user_clients.signup_day, for people
-- whose sign-up was recorded) and the calendar week's and month's active people (no other day of theirs in it).
-- A finish that is not the day's first costs one upsert more than before (the client's totals).
create or replace function app.count_user_day(user_id uuid, day date, sessions integer, minutes integer, rated integer)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_shard smallint := app.counter_shard(count_user_day.user_id);
    v_left integer;
    v_client integer;
    v_day_changed boolean := false;
    v_signup_day date;
    v_signup_client integer;
    v_after integer;
    v_period text;
    v_start date;
begin
    -- Before 0095 (sql/app is loaded before the migrations of an upgrade, whose data changes then
    -- fire it): no product rollups yet, the user-day as app.add_user_day keeps it.
    if to_regclass('app.client_day_totals') is null then
        perform app.add_user_day(count_user_day.user_id, count_user_day.day, count_user_day.sessions);
        return;
    end if;
    if count_user_day.sessions > 0 then
        update app.session_user_days d set sessions = d.sessions + count_user_day.sessions
        where d.user_id = count_user_day.user_id and d.day = count_user_day.day
        returning d.client_id into v_client;
        if not found then
            insert into app.session_user_days as d (user_id, day, sessions, client_id)
            values (count_user_day.user_id, count_user_day.day, count_user_day.sessions, app.current_client(count_user_day.user_id))
            on conflict on constraint session_user_days_pkey do update set sessions = d.sessions + excluded.sessions
            returning d.sessions, d.client_id into v_left, v_client;
            v_day_changed := v_left = count_user_day.sessions;
        end if;
    else
        update app.session_user_days d set sessions = d.sessions + count_user_day.sessions
        where d.user_id = count_user_day.user_id and d.day = count_user_day.day and d.sessions + count_user_day.sessions > 0
        returning d.client_id into v_client;
        if not found then
            delete from app.session_user_days d where d.user_id = count_user_day.user_id and d.day = count_user_day.day
            returning d.client_id into v_client;
            v_day_changed := true;
        end if;
    end if;
    if v_day_changed then
        if count_user_day.sessions > 0 then
            insert into app.active_users_per_day as a (day, shard, users)
            values (count_user_day.day, v_shard, 1)
            on conflict on constraint active_users_per_day_pkey do update set users = a.users + 1;
        else
            update app.active_users_per_day a set users = a.users - 1 where a.day = count_user_day.day and a.shard = v_shard;
        end if;
    end if;
    -- (A decrement is an update: an upsert's proposed row of -1 would fail the CHECK first.)
    if v_client is not null and count_user_day.sessions > 0 then
        insert into app.client_day_totals as t (day, client_id, shard, active_users, sessions, minutes, rated)
        values (count_user_day.day, v_client, v_shard, case when v_day_changed then 1 else 0 end,
                count_user_day.sessions, count_user_day.minutes, count_user_day.rated)
        on conflict on constraint client_day_totals_pkey do update
            set active_users = t.active_users + excluded.active_users, sessions = t.sessions + excluded.sessions,
                minutes = t.minutes + excluded.minutes, rated = t.rated + excluded.rated;
    elsif v_client is not null then
        -- Never below 0: an imported session (app.import_sessions feeds no by-client rollup)
        -- leaving a user-day counted here takes what it never added. A day compacted since
        -- (app.compact_product_rollups) holds it in shard 0.
        update app.client_day_totals t
        set active_users = greatest(t.active_users - case when v_day_changed then 1 else 0 end, 0),
            sessions = greatest(t.sessions + count_user_day.sessions, 0),
            minutes = greatest(t.minutes + count_user_day.minutes, 0), rated = greatest(t.rated + count_user_day.rated, 0)
        where t.day = count_user_day.day and t.client_id = v_client
          and t.shard = (select coalesce(max(k.shard), 0::smallint) from app.client_day_totals k
                         where k.day = count_user_day.day and k.client_id = v_client and k.shard in (0, v_shard));
    end if;
    if not v_day_changed then
        return;
    end if;
    -- The sign-up cohort: D1, D7, D30.
    select c.signup_day, c.signup_client_id into v_signup_day, v_signup_client
    from app.user_clients c where c.user_id = count_user_day.user_id;
    v_after := count_user_day.day - v_signup_day;
    if v_signup_client is not null and v_after in (1, 7, 30) then
        update app.signup_day_totals t
        set d1 = t.d1 + case when v_after = 1 then sign(count_user_day.sessions)::integer else 0 end,
            d7 = t.d7 + case when v_after = 7 then sign(count_user_day.sessions)::integer else 0 end,
            d30 = t.d30 + case when v_after = 30 then sign(count_user_day.sessions)::integer else 0 end
        where t.day = v_signup_day and t.client_id = v_signup_client and t.shard = v_shard;
    end if;
    -- The calendar week and month: counted when the person's first day in it arrives, and
    -- uncounted when their last one leaves.
    foreach v_period in array array['week', 'month'] loop
        v_start := date_trunc(v_period, count_user_day.day)::date;
        continue when exists (select from app.session_user_days d
                              where d.user_id = count_user_day.user_id and d.day <> count_user_day.day
                                and d.day >= v_start and d.day < (v_start + ('1 ' || v_period)::interval)::date);
        if count_user_day.sessions > 0 then
            insert into app.active_users_per_period as a (period, start, shard, users)
            values (v_period, v_start, v_shard, 1)
            on conflict on constraint active_users_per_period_pkey do update set users = a.users + 1;
        else
            update app.active_users_per_period a set users = a.users - 1
            where a.period = v_period and a.start = v_start and a.shard = v_shard;
        end if;
    end loop;
end
$$;

-- A finished session's row as it was leaves its totals.
create or replace function app.take_session_total(session app.focus_sessions)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.session_day_totals t
    set sessions = t.sessions - 1, minutes = t.minutes - take_session_total.session.minutes,
        coins = t.coins - take_session_total.session.coins_earned
    where t.day = (take_session_total.session.ended_at at time zone 'UTC')::date
      and t.source = take_session_total.session.source and t.shard = app.counter_shard(take_session_total.session.user_id);
    if not found then
        raise exception 'app.session_day_totals has no row for session %', take_session_total.session.id;
    end if;
end
$$;

create or replace function app.focus_sessions_day_totals()
returns trigger
language plpgsql security definer
set search_path = public, pg_temp
as $$
declare
    v_old_day date := case when tg_op <> 'INSERT' then (old.ended_at at time zone 'UTC')::date end;
    v_new_day date := case when tg_op <> 'DELETE' then (new.ended_at at time zone 'UTC')::date end;
    v_old_first boolean;
begin
    if v_old_day is null and v_new_day is null then
        return null;  -- a session still running: not counted
    end if;
    if tg_op = 'UPDATE' and (v_old_day, old.source, old.user_id) = (v_new_day, new.source, new.user_id) then
        -- The same row of totals (where the old values are): the differences (a payment).
        update app.session_day_totals t
        set minutes = t.minutes + (new.minutes - old.minutes), coins = t.coins + (new.coins_earned - old.coins_earned)
        where t.day = v_new_day and t.source = new.source and t.shard = app.counter_shard(new.user_id)
          and (new.minutes <> old.minutes or new.coins_earned <> old.coins_earned);
        -- The client's totals of the user-day (0095): minutes paid (a rating is counted by
        -- app.focus_sessions_rated).
        if new.minutes <> old.minutes then
            update app.client_day_totals t
            set minutes = greatest(t.minutes + (new.minutes - old.minutes), 0)
            from app.session_user_days d
            where d.user_id = new.user_id and d.day = v_new_day
              and t.day = v_new_day and t.client_id = d.client_id
              and t.shard = (select coalesce(max(k.shard), 0::smallint) from app.client_day_totals k
                             where k.day = v_new_day and k.client_id = d.client_id and k.shard in (0, app.counter_shard(new.user_id)));
        end if;
        return null;
    end if;
    -- Another row (or only one side): the lower key first.
    v_old_first := v_old_day is not null and (v_new_day is null or (v_old_day, old.source) < (v_new_day, new.source));
    if v_old_first then
        perform app.take_session_total(old);
    end if;
    if v_new_day is not null then
        insert into app.session_day_totals as t (day, source, shard, sessions, minutes, coins)
        values (v_new_day, new.source, app.counter_shard(new.user_id), 1, new.minutes, new.coins_earned)
        on conflict on constraint session_day_totals_pkey do update
            set sessions = t.sessions + 1, minutes = t.minutes + excluded.minutes, coins = t.coins + excluded.coins;
    end if;
    if v_old_day is not null and not v_old_first then
        perform app.take_session_total(old);
    end if;
    -- Active users: only when the session moves to another user or day (ascending days).
    if tg_op <> 'UPDATE' or old.user_id <> new.user_id or v_old_day is distinct from v_new_day then
        if v_new_day is not null and (v_old_day is null or v_new_day < v_old_day) then
            perform app.count_user_day(new.user_id, v_new_day, 1, new.minutes, (new.rating is not null)::integer);
            if v_old_day is not null then
                perform app.count_user_day(old.user_id, v_old_day, -1, -old.minutes, -(old.rating is not null)::integer);
            end if;
        else
            if v_old_day is not null then
                perform app.count_user_day(old.user_id, v_old_day, -1, -old.minutes, -(old.rating is not null)::integer);
            end if;
            if v_new_day is not null then
                perform app.count_user_day(new.user_id, v_new_day, 1, new.minutes, (new.rating is not null)::integer);
            end if;
        end if;
    end if;
    return null;
end
$$;

-- A finished session rated, or its rating taken back, staying on its user and UTC day: the rated
-- sessions of the client its user-day is counted under (0095; bound by 0096 to updates that
-- change whether there is a rating). A session that moves to another user or day in the same
-- statement is counted, rating and all, by app.focus_sessions_day_totals.
create or replace function app.focus_sessions_rated()
returns trigger
language plpgsql security definer
set search_path = public, pg_temp
as $$
declare
    v_day date := (new.ended_at at time zone 'UTC')::date;
begin
    if new.ended_at is null or old.ended_at is null or old.user_id <> new.user_id
       or v_day <> (old.ended_at at time zone 'UTC')::date then
        return null;
    end if;
    -- Its shard's row, or shard 0 once the day is compacted; never below 0 (as in app.count_user_day).
    update app.client_day_totals t
    set rated = greatest(t.rated + (new.rating is not null)::integer - (old.rating is not null)::integer, 0)
    from app.session_user_days d
    where d.user_id = new.user_id and d.day = v_day
      and t.day = v_day and t.client_id = d.client_id
      and t.shard = (select coalesce(max(k.shard), 0::smallint) from app.client_day_totals k
                     where k.day = v_day and k.client_id = d.client_id and k.shard in (0, app.counter_shard(new.user_id)));
    return null;
end
$$;

create or replace function app.coin_ledger_day_totals()
returns trigger
language plpgsql security definer
set search_path = public, pg_temp
as $$
begin
    insert into app.ledger_day_totals as t (day, shard, entries, earned, spent, granted)
    values ((new.created_at at time zone 'UTC')::date, app.counter_shard(new.user_id), 1,
            case when new.entry in ('earn', 'bonus', 'reward') then new.amount else 0 end,
            case when new.entry in ('spend', 'freeze') then -new.amount else 0 end,
            case when new.entry = 'grant' then new.amount else 0 end)
    on conflict on constraint ledger_day_totals_pkey do update
        set entries = t.entries + 1, earned = t.earned + excluded.earned,
            spent = t.spent + excluded.spent, granted = t.granted + excluded.granted;
    -- By the person's client (0095); given: coins sent as a gift (its refund and its
    -- acceptance are not counted). Not before 0095 (an upgrade replaying older migrations' data).
    if to_regclass('app.client_ledger_day_totals') is null then
        return null;
    end if;
    insert into app.client_ledger_day_totals as t (day, client_id, shard, earned, spent, granted, given)
    values ((new.created_at at time zone 'UTC')::date, app.current_client(new.user_id), app.counter_shard(new.user_id),
            case when new.entry in ('earn', 'bonus', 'reward') then new.amount else 0 end,
            case when new.entry in ('spend', 'freeze') then -new.amount else 0 end,
            case when new.entry = 'grant' then new.amount else 0 end,
            case when new.entry = 'gift' and new.amount < 0 then -new.amount else 0 end)
    on conflict on constraint client_ledger_day_totals_pkey do update
        set earned = t.earned + excluded.earned, spent = t.spent + excluded.spent,
            granted = t.granted + excluded.granted, given = t.given + excluded.given;
    return null;
end
$$;

-- The by-client rollups' past days in one row (0098, the scheduled job compact_product_rollups):
-- a day's 8 shards spread the row locks of that day's commits, which only today (and yesterday,
-- around midnight) still take; each step folds the shards of up to `days` UTC days before
-- yesterday into shard 0, for app.client_day_totals and app.client_ledger_day_totals, so a year
-- of every client is about 365 x clients rows, not 8 times as many (docs/performance.md). A late
-- change to a folded day adds a shard row again (folded next time) or, taking away, finds
-- shard 0 (app.count_user_day). Returns the days folded; 0 when none waits.
create or replace function app.compact_product_rollups(days integer default 31)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_before date := (now() at time zone 'UTC')::date - 1;
    v_days date[];
begin
    select array_agg(d.day order by d.day) into v_days
    from (select distinct t.day from app.client_day_totals t where t.day < v_before and t.shard <> 0
          union
          select distinct l.day from app.client_ledger_day_totals l where l.day < v_before and l.shard <> 0
          order by 1 limit compact_product_rollups.days) d;
    if v_days is null then
        return 0;
    end if;
    with gone as (
        delete from app.client_day_totals t where t.day = any (v_days) and t.shard <> 0 returning t.*
    )
    insert into app.client_day_totals as t (day, client_id, shard, active_users, sessions, minutes, rated)
    select g.day, g.client_id, 0, sum(g.active_users), sum(g.sessions), sum(g.minutes), sum(g.rated)
    from gone g group by g.day, g.client_id order by g.day, g.client_id
    on conflict on constraint client_day_totals_pkey do update
        set active_users = t.active_users + excluded.active_users, sessions = t.sessions + excluded.sessions,
            minutes = t.minutes + excluded.minutes, rated = t.rated + excluded.rated;
    with gone as (
        delete from app.client_ledger_day_totals l where l.day = any (v_days) and l.shard <> 0 returning l.*
    )
    insert into app.client_ledger_day_totals as t (day, client_id, shard, earned, spent, granted, given)
    select g.day, g.client_id, 0, sum(g.earned), sum(g.spent), sum(g.granted), sum(g.given)
    from gone g group by g.day, g.client_id order by g.day, g.client_id
    on conflict on constraint client_ledger_day_totals_pkey do update
        set earned = t.earned + excluded.earned, spent = t.spent + excluded.spent,
            granted = t.granted + excluded.granted, given = t.given + excluded.given;
    return cardinality(v_days);
end
$$;
comment on function app.compact_product_rollups(integer) is
    'One step of the job compact_product_rollups: the 8 shards of up to `days` past UTC days (before yesterday) of '
    'app.client_day_totals and app.client_ledger_day_totals folded into shard 0. Returns the days folded.';
