-- Counters: what the triggers keep (the minutes rollup of 0012, the counts of 0013) against a
-- recount from the rows they count. Must always be empty.

-- report.counter_reconciliation_between(from_day, to_day): the counter rows of the days from_day
-- to to_day (and of the weeks that overlap them) that differ from a recount, reading only the
-- sessions and ledger rows those days can hold (through the ended_at and created_at indexes): a
-- day costs the same however many days are kept. Local days are at most 14 hours from UTC, so a
-- day's sessions end within a day either side of it. PL/pgSQL, so each call is planned with its
-- own bounds (all days scan the tables, a few days read an index range); security definer,
-- because focus_report reads no app table.
create function report.counter_reconciliation_between(from_day date, to_day date)
returns table (counter text, key jsonb, kept jsonb, recounted jsonb)
language plpgsql stable security definer set search_path = public, pg_temp
as $$
#variable_conflict use_column
declare
    first_week constant date := date_trunc('week', from_day)::date;
    -- The sessions whose local day or week can fall in the range (the last week overlapping it
    -- ends by to_day + 7, a day's local clock is within 14 hours of UTC), and its UTC bounds.
    sessions_from constant timestamptz := (first_week - 1)::timestamp at time zone 'UTC';
    sessions_to constant timestamptz := (to_day + 8)::timestamp at time zone 'UTC';
    utc_from constant timestamptz := from_day::timestamp at time zone 'UTC';
    utc_to constant timestamptz := (to_day + 1)::timestamp at time zone 'UTC';
    -- The ledger's archive horizon (0050): its days are recounted as one total, since their
    -- entries are summed per person in app.coin_ledger_archive_totals, not per day.
    archived_before constant timestamptz := (select a.archived_before from app.ledger_archive a);
    archived_day constant date := case when archived_before = '-infinity' then '-infinity'::date
                                       else (archived_before at time zone 'UTC')::date end;
begin
    return query
        with kept (counter, key, value) as (
            select 'daily_minutes', jsonb_build_object('user_id', d.user_id, 'day', d.day), jsonb_build_array(d.minutes::bigint)
            from app.daily_minutes d where d.day between from_day and to_day
            union all
            select 'weekly_minutes', jsonb_build_object('user_id', w.user_id, 'week', w.week), jsonb_build_array(w.minutes::bigint)
            from app.weekly_minutes w where w.week between first_week and to_day
            union all
            select 'daily_minutes_counts', jsonb_build_object('day', c.day, 'minutes', c.minutes, 'shard', c.shard), jsonb_build_array(c.users::bigint)
            from app.daily_minutes_counts c where c.users <> 0 and c.day between from_day and to_day
            union all
            select 'weekly_minutes_counts', jsonb_build_object('week', c.week, 'minutes', c.minutes, 'shard', c.shard), jsonb_build_array(c.users::bigint)
            from app.weekly_minutes_counts c where c.users <> 0 and c.week between first_week and to_day
            union all
            select 'session_day_totals', jsonb_build_object('day', t.day, 'source', t.source, 'shard', t.shard),
                   jsonb_build_array(t.sessions, t.minutes, t.coins)
            from app.session_day_totals t
            where (t.sessions, t.minutes, t.coins) <> (0, 0, 0) and t.day between from_day and to_day
            union all
            select 'session_user_days', jsonb_build_object('user_id', d.user_id, 'day', d.day), jsonb_build_array(d.sessions::bigint)
            from app.session_user_days d where d.day between from_day and to_day
            union all
            select 'active_users_per_day', jsonb_build_object('day', a.day, 'shard', a.shard), jsonb_build_array(a.users::bigint)
            from app.active_users_per_day a where a.users <> 0 and a.day between from_day and to_day
            union all
            select 'ledger_day_totals', jsonb_build_object('day', l.day, 'shard', l.shard),
                   jsonb_build_array(l.entries, l.earned, l.spent, l.granted)
            from app.ledger_day_totals l where l.entries <> 0 and l.day between greatest(from_day, archived_day) and to_day
            union all
            select 'ledger_day_totals', jsonb_build_object('before', archived_day),
                   jsonb_build_array(sum(l.entries)::bigint, sum(l.earned)::bigint, sum(l.spent)::bigint, sum(l.granted)::bigint)
            from app.ledger_day_totals l where l.day < archived_day and from_day < archived_day
            having sum(l.entries) <> 0
        ),
        -- The rows' own local days (weeks): the rollup counts accounts that are not deleted.
        rollup as (
            select s.user_id, (s.ended_at at time zone u.time_zone)::date as day,
                   date_trunc('week', s.ended_at at time zone u.time_zone)::date as week, s.minutes
            from (select l.user_id, l.ended_at, l.minutes from app.focus_sessions l
                  union all
                  select a.user_id, a.ended_at, a.minutes from app.focus_sessions_archived a) s  -- moved past the horizon (0055)
            join app.users u on u.id = s.user_id
            where u.deleted_at is null and s.minutes > 0 and s.ended_at >= sessions_from and s.ended_at < sessions_to
        ),
        daily as (select r.user_id, r.day, sum(r.minutes)::bigint as minutes from rollup r where r.day between from_day and to_day group by 1, 2),
        weekly as (select r.user_id, r.week, sum(r.minutes)::bigint as minutes from rollup r where r.week between first_week and to_day
                   group by 1, 2),
        finished as (
            select s.user_id, (s.ended_at at time zone 'UTC')::date as day, s.source, s.minutes, s.coins_earned
            from (select l.user_id, l.ended_at, l.source, l.minutes, l.coins_earned from app.focus_sessions l
                  union all
                  select a.user_id, a.ended_at, a.source, a.minutes, a.coins_earned from app.focus_sessions_archived a) s
            where s.ended_at >= utc_from and s.ended_at < utc_to
        ),
        user_days as (select f.user_id, f.day, count(*) as sessions from finished f group by 1, 2),
        recounted (counter, key, value) as (
            select 'daily_minutes', jsonb_build_object('user_id', d.user_id, 'day', d.day), jsonb_build_array(d.minutes)
            from daily d
            union all
            select 'weekly_minutes', jsonb_build_object('user_id', w.user_id, 'week', w.week), jsonb_build_array(w.minutes)
            from weekly w
            union all
            select 'daily_minutes_counts', jsonb_build_object('day', d.day, 'minutes', d.minutes, 'shard', app.counter_shard(d.user_id)),
                   jsonb_build_array(count(*))
            from daily d group by d.day, d.minutes, app.counter_shard(d.user_id)
            union all
            select 'weekly_minutes_counts', jsonb_build_object('week', w.week, 'minutes', w.minutes, 'shard', app.counter_shard(w.user_id)),
                   jsonb_build_array(count(*))
            from weekly w group by w.week, w.minutes, app.counter_shard(w.user_id)
            union all
            select 'session_day_totals', jsonb_build_object('day', f.day, 'source', f.source, 'shard', app.counter_shard(f.user_id)),
                   jsonb_build_array(count(*), sum(f.minutes), sum(f.coins_earned))
            from finished f group by f.day, f.source, app.counter_shard(f.user_id)
            union all
            select 'session_user_days', jsonb_build_object('user_id', d.user_id, 'day', d.day), jsonb_build_array(d.sessions)
            from user_days d
            union all
            select 'active_users_per_day', jsonb_build_object('day', d.day, 'shard', app.counter_shard(d.user_id)), jsonb_build_array(count(*))
            from user_days d group by d.day, app.counter_shard(d.user_id)
            union all
            select 'ledger_day_totals', jsonb_build_object('day', (c.created_at at time zone 'UTC')::date, 'shard', app.counter_shard(c.user_id)),
                   jsonb_build_array(count(*),
                                     coalesce(sum(c.amount) filter (where c.entry in ('earn', 'bonus', 'reward')), 0),
                                     coalesce(-sum(c.amount) filter (where c.entry in ('spend', 'freeze')), 0),
                                     coalesce(sum(c.amount) filter (where c.entry = 'grant'), 0))
            from app.coin_ledger c where c.created_at >= greatest(utc_from, archived_before) and c.created_at < utc_to
            group by (c.created_at at time zone 'UTC')::date, app.counter_shard(c.user_id)
            union all
            -- Before the horizon: the archived totals and the entries left live (bonus entries).
            select 'ledger_day_totals', jsonb_build_object('before', archived_day),
                   jsonb_build_array(sum(e.entries)::bigint,
                                     coalesce(sum(e.coins) filter (where e.entry in ('earn', 'bonus', 'reward')), 0)::bigint,
                                     coalesce(-sum(e.coins) filter (where e.entry in ('spend', 'freeze')), 0)::bigint,
                                     coalesce(sum(e.coins) filter (where e.entry = 'grant'), 0)::bigint)
            from (select a.entry, a.entries, a.coins from app.coin_ledger_archive_totals a
                  union all
                  select c.entry, 1, c.amount from app.coin_ledger c where c.created_at < archived_before) e
            where from_day < archived_day
            having sum(e.entries) <> 0
        )
        select coalesce(k.counter, r.counter) as counter,
               coalesce(k.key, r.key) as key,
               k.value as kept,
               r.value as recounted
        from kept k
        full join recounted r on r.counter = k.counter and r.key = k.key
        where k.value is distinct from r.value;
end
$$;
comment on function report.counter_reconciliation_between(date, date) is
    'The counter rows of the days from_day to to_day (UTC days for the day totals, local days for '
    'the minutes rollup, and the weeks that overlap the range) that differ from a recount of what '
    'they count, reading only the rows those days can hold. Must be empty. Yesterday and today: '
    'select * from report.counter_reconciliation_between(current_date - 1, current_date)';

-- Every day there is: the same recount, unbounded.
create view report.counter_reconciliation as
select r.counter, r.key, r.kept, r.recounted
from report.counter_reconciliation_between('-infinity', 'infinity') r;
comment on view report.counter_reconciliation is
    'One row per counter row that differs from a recount of what it counts: the minutes rollup '
    '(daily_minutes, weekly_minutes), the rank histogram (daily_minutes_counts, weekly_minutes_counts), '
    'the UTC-day totals (session_day_totals, session_user_days, active_users_per_day, ledger_day_totals). '
    'kept is the counter''s value, recounted the recount (null where one side has no row). Must stay '
    'empty. Reads every session and ledger row: run it off-peak at scale, '
    'or counter_reconciliation_between for a few days.';
