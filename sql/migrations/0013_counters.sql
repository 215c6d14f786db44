-- 0013 counters: what a leaderboard rank and the report views' days add up, kept as counts by
-- triggers in the same transaction as the rows they count, so neither reads O(users) rows.
--
-- 1. The rank histogram: for each local day (week) and minutes value, how many users of the
--    rollup (0012) have exactly that many minutes. A caller's global rank is 1 + the users
--    strictly above them (rank() semantics, ties share a rank): a sum over the distinct minute
--    values above theirs, which are bounded (a day holds at most a few thousand), read in the
--    primary key's order. Kept by triggers on app.daily_minutes / app.weekly_minutes, so every
--    path that changes the rollup (sessions, time zone rebuilds, deleted accounts) moves it.
-- 2. UTC-day totals for the report views: finished sessions, minutes and coins per UTC day and
--    path; users active per UTC day (through one row per user and UTC day with sessions); the
--    ledger's earned, spent and granted per UTC day. Kept by triggers on app.focus_sessions
--    and app.coin_ledger.
--
-- Contention and lock order: a count row is shared by everyone who lands on the same key (every
-- session of a day lands on that day's totals), and its row lock is held to commit. So
--   - each key is split in 8 shards by the user's id (app.counter_shard); the views and the rank
--     sum the shards;
--   - the count triggers are constraint triggers, deferred to commit: a transaction takes its
--     count rows last, after everything else it locks (notably the events' commit-order lock,
--     0007, which every ledger row takes through balance.changed), and holds them only while it
--     commits. Taken while the session row is written, they would be held across the payment,
--     and a transaction holding a count row could wait for the events lock held by one waiting
--     for that count row (a deadlock);
--   - within one trigger, rows are locked in ascending key order; so transactions that change one
--     session never wait on each other in a circle. The rare multi-row changes (a batch, a time
--     zone rebuild) can, and are then retried by the server (40P01, Pipeline).
-- At commit no api function is running any more: the trigger functions are security definer (of
-- the migration's owner, like the tables), or focus_api, which may touch nothing in app, could
-- not commit a session. Inside the transaction that changes them, counts are therefore behind until it commits (a
-- test that reads them in its own transaction says `set constraints all immediate`). Count rows
-- that fall to zero stay (at most a few per key); the views and the rank ignore them.

-- The shard of a user's count rows: 0-7, from the last byte of the id (random in v4 UUIDs).
create function app.counter_shard(user_id uuid)
returns smallint
language sql immutable parallel safe
set search_path = public, pg_temp
as $$ select (get_byte(uuid_send(counter_shard.user_id), 15) % 8)::smallint $$;
comment on function app.counter_shard(uuid) is
    'The shard (0-7) of a user''s rows in the count tables of migration 0013: spreads the users of one key over 8 rows.';

-- 1. The rank histogram.
create table app.daily_minutes_counts (
    day      date not null,
    minutes  integer not null check (minutes > 0),
    shard    smallint not null,
    users    integer not null check (users >= 0),
    primary key (day, minutes, shard)
);
comment on table app.daily_minutes_counts is
    'Users of app.daily_minutes per (day, minutes), in 8 shards: a rank is 1 + the users above. Kept by app.daily_minutes_count.';
create table app.weekly_minutes_counts (
    week     date not null,
    minutes  integer not null check (minutes > 0),
    shard    smallint not null,
    users    integer not null check (users >= 0),
    primary key (week, minutes, shard)
);
comment on table app.weekly_minutes_counts is
    'Users of app.weekly_minutes per (week, minutes), in 8 shards: a rank is 1 + the users above. Kept by app.weekly_minutes_count.';

-- One rollup row arrives, leaves or changes: one user fewer at the old minutes, one more at the
-- new (a row of each, in ascending order; nothing when the key and the shard stay the same).
create function app.daily_minutes_count()
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
create constraint trigger daily_minutes_count
after insert or delete or update on app.daily_minutes
deferrable initially deferred
for each row execute function app.daily_minutes_count();

create function app.weekly_minutes_count()
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
create constraint trigger weekly_minutes_count
after insert or delete or update on app.weekly_minutes
deferrable initially deferred
for each row execute function app.weekly_minutes_count();

-- 2. UTC-day totals.
create table app.session_day_totals (
    day       date not null,  -- the UTC date of ended_at
    source    text not null,
    shard     smallint not null,
    sessions  bigint not null check (sessions >= 0),
    minutes   bigint not null check (minutes >= 0),
    coins     bigint not null check (coins >= 0),
    primary key (day, source, shard)
);
comment on table app.session_day_totals is
    'Finished sessions, their minutes and coins per UTC day of ended_at and source, in 8 shards. Kept by app.focus_sessions_day_totals.';

-- The users active on a UTC day: one row per user and UTC day with finished sessions (their
-- number), and per day (in shards) how many such rows there are.
create table app.session_user_days (
    user_id   uuid not null,
    day       date not null,
    sessions  integer not null check (sessions > 0),
    primary key (user_id, day)
);
comment on table app.session_user_days is
    'Finished sessions per user and UTC day of ended_at (rows only where there are some). Kept by app.focus_sessions_day_totals.';
create table app.active_users_per_day (
    day    date not null,
    shard  smallint not null,
    users  integer not null check (users >= 0),
    primary key (day, shard)
);
comment on table app.active_users_per_day is
    'Users with a row in app.session_user_days per UTC day, in 8 shards. Kept by app.add_user_day.';

-- `sessions` (1 or -1) finished sessions for the user on a UTC day; the day's active users
-- move when the user's first session of the day arrives or the last one leaves.
create function app.add_user_day(user_id uuid, day date, sessions integer)
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

-- A finished session's row as it was leaves its totals.
create function app.take_session_total(session app.focus_sessions)
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

create function app.focus_sessions_day_totals()
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
            perform app.add_user_day(new.user_id, v_new_day, 1);
            if v_old_day is not null then
                perform app.add_user_day(old.user_id, v_old_day, -1);
            end if;
        else
            if v_old_day is not null then
                perform app.add_user_day(old.user_id, v_old_day, -1);
            end if;
            if v_new_day is not null then
                perform app.add_user_day(new.user_id, v_new_day, 1);
            end if;
        end if;
    end if;
    return null;
end
$$;
create constraint trigger focus_sessions_utc_day_totals
after insert or delete or update of user_id, source, ended_at, minutes, coins_earned on app.focus_sessions
deferrable initially deferred
for each row execute function app.focus_sessions_day_totals();

create table app.ledger_day_totals (
    day      date not null,  -- the UTC date of created_at
    shard    smallint not null,
    entries  bigint not null check (entries >= 0),
    earned   bigint not null,
    spent    bigint not null,  -- coins paid (positive)
    granted  bigint not null,
    primary key (day, shard)
);
comment on table app.ledger_day_totals is
    'Ledger rows and their coins by kind per UTC day of created_at, in 8 shards. Kept by app.coin_ledger_day_totals (the ledger is append-only).';

create function app.coin_ledger_day_totals()
returns trigger
language plpgsql security definer
set search_path = public, pg_temp
as $$
begin
    insert into app.ledger_day_totals as t (day, shard, entries, earned, spent, granted)
    values ((new.created_at at time zone 'UTC')::date, app.counter_shard(new.user_id), 1,
            case when new.entry = 'earn' then new.amount else 0 end,
            case when new.entry = 'spend' then -new.amount else 0 end,
            case when new.entry = 'grant' then new.amount else 0 end)
    on conflict on constraint ledger_day_totals_pkey do update
        set entries = t.entries + 1, earned = t.earned + excluded.earned,
            spent = t.spent + excluded.spent, granted = t.granted + excluded.granted;
    return null;
end
$$;
create constraint trigger coin_ledger_utc_day_totals
after insert on app.coin_ledger
deferrable initially deferred
for each row execute function app.coin_ledger_day_totals();

-- The report views no longer group the sessions by their UTC day: nothing reads this index, and
-- every session insert paid for it.
drop index app.focus_sessions_end_day;

-- Every existing row, once (the tables were created empty above, with their triggers: the
-- rollup's counts are written here from the rollup itself).
insert into app.daily_minutes_counts (day, minutes, shard, users)
select d.day, d.minutes, app.counter_shard(d.user_id), count(*) from app.daily_minutes d group by 1, 2, 3;
insert into app.weekly_minutes_counts (week, minutes, shard, users)
select w.week, w.minutes, app.counter_shard(w.user_id), count(*) from app.weekly_minutes w group by 1, 2, 3;
insert into app.session_day_totals (day, source, shard, sessions, minutes, coins)
select (s.ended_at at time zone 'UTC')::date, s.source, app.counter_shard(s.user_id), count(*), sum(s.minutes), sum(s.coins_earned)
from app.focus_sessions s where s.ended_at is not null group by 1, 2, 3;
insert into app.session_user_days (user_id, day, sessions)
select s.user_id, (s.ended_at at time zone 'UTC')::date, count(*)
from app.focus_sessions s where s.ended_at is not null group by 1, 2;
insert into app.active_users_per_day (day, shard, users)
select d.day, app.counter_shard(d.user_id), count(*) from app.session_user_days d group by 1, 2;
insert into app.ledger_day_totals (day, shard, entries, earned, spent, granted)
select (c.created_at at time zone 'UTC')::date, app.counter_shard(c.user_id), count(*),
       coalesce(sum(c.amount) filter (where c.entry = 'earn'), 0),
       coalesce(-sum(c.amount) filter (where c.entry = 'spend'), 0),
       coalesce(sum(c.amount) filter (where c.entry = 'grant'), 0)
from app.coin_ledger c group by 1, 2;
