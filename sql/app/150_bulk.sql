-- Bulk work for DBAs (2026-12-06): importing finished focus sessions in batches, each batch's
-- row-trigger work done once, set-based. The backfill of achievements is in
-- 130_achievements.sql, the prunes in 050_idempotency.sql, 080_erasure.sql and 020_events.sql.
-- docs/operations.md, "Bulk work beside live traffic", says how to run each beside live traffic.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- One batch of an import: moves at most `batch_size` rows of app.session_import (the lowest ids
-- not taken by another import running at once: FOR UPDATE SKIP LOCKED) into app.focus_sessions,
-- in the caller's transaction, and returns how many it moved. A batch is written whole or not
-- at all, and leaves what inserting its rows one by one through the row triggers of
-- app.focus_sessions would leave of what they keep for everyone:
--   - the account-age check (focus_sessions_after_account): a row starting before its account
--     was made stops the batch with 23514, naming it, before anything is written;
--   - the minutes rollup (focus_sessions_rollup): app.daily_minutes and app.weekly_minutes in the
--     person's local days and weeks, live accounts only, one upsert each per batch, in key order
--     (their own deferred triggers keep the minutes counts, row by row of the rollup);
--   - the UTC-day counters (focus_sessions_utc_day_totals): app.session_day_totals,
--     app.session_user_days and app.active_users_per_day, one upsert each, in key order, so a
--     live commit moving the same rows waits for the batch or the batch for it, never both.
-- What an import does not do, by policy (docs/operations.md, 2026-12-06): it writes no events
-- (focus_sessions_events, focus_sessions_own_events: history is not news to the friends or the
-- person's devices); it pays nothing (no ledger rows; app.session_import has no coins column, so
-- coins_earned is 0); it grants no achievements (focus_sessions_achievements: a DBA who wants the
-- history to count runs CALL app.backfill_achievement_all(code), which pays and tells as a grant
-- does); and it decides no streak freezes (focus_sessions_streak_freezes: app.user_streak applies
-- the freezes due when the streak is next read, with the imported days in place).
-- The row triggers are skipped by the transaction-local setting focus.bulk_import = 'on', set
-- around the insert only (their WHEN clauses, 0042): every other session, and this one's later
-- statements, run them as always. The table's constraints (the foreign key, the checks, one
-- person's sessions never overlapping) are checked row by row as for any insert; against the
-- sessions archived past the horizon (0055), which no constraint spans, the batch checks the
-- same two first: an id archived already stops it with 23505, a session overlapping one of the
-- person's archived sessions with 23P01, naming it, before anything is written.
create or replace function app.import_sessions(batch_size integer default 10000)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_ids uuid[];
    v_early uuid;
    v_taken uuid;
begin
    if batch_size is null or batch_size < 1 then
        raise exception 'batch_size is at least 1' using errcode = 'invalid_parameter_value';
    end if;
    select coalesce(array_agg(b.id order by b.id), '{}') into v_ids
    from (select i.id from app.session_import i order by i.id limit import_sessions.batch_size for update skip locked) b;
    if cardinality(v_ids) = 0 then
        return 0;
    end if;
    select i.id into v_early
    from app.session_import i join app.users u on u.id = i.user_id
    where i.id = any(v_ids) and i.started_at < u.created_at
    order by i.id limit 1;
    if v_early is not null then
        raise check_violation using
            message = format('focus session %s starts before its account was made', v_early),
            constraint = 'focus_sessions_after_account';
    end if;
    select i.id into v_taken
    from app.session_import i
    where i.id = any(v_ids) and exists (select from app.focus_sessions_archived a where a.id = i.id)
    order by i.id limit 1;
    if v_taken is not null then
        raise unique_violation using
            message = format('focus session %s is archived already', v_taken), constraint = 'focus_sessions_archived_pkey';
    end if;
    select i.id into v_taken
    from app.session_import i
    where i.id = any(v_ids)
      and exists (select from app.focus_sessions_archived a
                  where a.user_id = i.user_id and a.started_at < i.ended_at and a.ended_at > i.started_at)
    order by i.id limit 1;
    if v_taken is not null then
        raise exclusion_violation using
            message = format('focus session %s overlaps an archived session', v_taken), constraint = 'focus_sessions_no_overlap';
    end if;

    perform set_config('focus.bulk_import', 'on', true);
    insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, ended_at, occupies, minutes,
                                    abandoned, tag, rating, rated_at)
    select i.id, i.user_id, i.source, i.planned_minutes, i.started_at, i.ended_at, tstzrange(i.started_at, i.ended_at),
           i.minutes, i.abandoned, i.tag, i.rating, i.rated_at
    from app.session_import i where i.id = any(v_ids)
    order by i.id;
    perform set_config('focus.bulk_import', 'off', true);
    delete from app.session_import i where i.id = any(v_ids);

    -- The rollup (app.add_rollup_minutes, summed): live accounts, sessions with minutes.
    insert into app.daily_minutes as d (user_id, day, minutes)
    select s.user_id, (s.ended_at at time zone u.time_zone)::date, sum(s.minutes)
    from app.focus_sessions s join app.users u on u.id = s.user_id and u.deleted_at is null
    where s.id = any(v_ids) and s.minutes > 0
    group by 1, 2 order by 1, 2
    on conflict on constraint daily_minutes_pkey do update set minutes = d.minutes + excluded.minutes;
    insert into app.weekly_minutes as w (user_id, week, minutes)
    select s.user_id, date_trunc('week', s.ended_at at time zone u.time_zone)::date, sum(s.minutes)
    from app.focus_sessions s join app.users u on u.id = s.user_id and u.deleted_at is null
    where s.id = any(v_ids) and s.minutes > 0
    group by 1, 2 order by 1, 2
    on conflict on constraint weekly_minutes_pkey do update set minutes = w.minutes + excluded.minutes;

    -- The UTC-day counters (app.focus_sessions_day_totals, summed): every finished session.
    insert into app.session_day_totals as t (day, source, shard, sessions, minutes, coins)
    select (s.ended_at at time zone 'UTC')::date, s.source, app.counter_shard(s.user_id),
           count(*), sum(s.minutes), sum(s.coins_earned)
    from app.focus_sessions s
    where s.id = any(v_ids)
    group by 1, 2, 3 order by 1, 2, 3
    on conflict on constraint session_day_totals_pkey do update
        set sessions = t.sessions + excluded.sessions, minutes = t.minutes + excluded.minutes,
            coins = t.coins + excluded.coins;
    with days as (
        insert into app.session_user_days as d (user_id, day, sessions)
        select s.user_id, (s.ended_at at time zone 'UTC')::date, count(*)
        from app.focus_sessions s
        where s.id = any(v_ids)
        group by 1, 2 order by 1, 2
        on conflict on constraint session_user_days_pkey do update set sessions = d.sessions + excluded.sessions
        returning d.user_id, d.day, (d.xmax = 0) as fresh  -- inserted: the person's first session of the day
    )
    insert into app.active_users_per_day as a (day, shard, users)
    select n.day, app.counter_shard(n.user_id), count(*)
    from days n where n.fresh
    group by 1, 2 order by 1, 2
    on conflict on constraint active_users_per_day_pkey do update set users = a.users + excluded.users;
    return cardinality(v_ids);
end
$$;
comment on function app.import_sessions(integer) is
    'DBA tool: moves one batch (at most batch_size) of app.session_import into app.focus_sessions with the rollup and '
    'counters written set-based; no events, no coins, no achievements. How many it moved. CALL app.import_sessions_all() loops it.';

-- The whole import: app.import_sessions(batch_size) a transaction at a time, each batch
-- committed before the next, until app.session_import is empty (or what is left is taken by
-- another import running at once). An interrupted run keeps its committed batches; the rows
-- not moved stay in app.session_import, and calling it again moves them. A NOTICE every ten
-- batches. CALL it from psql outside a transaction block. `imported` answers the total. No SET
-- clause (a procedure with one may not commit): every name is schema-qualified.
create or replace procedure app.import_sessions_all(batch_size integer default 10000, inout imported bigint default 0)
language plpgsql
as $$
declare
    v_moved integer;
    v_batches integer := 0;
begin
    imported := 0;
    loop
        v_moved := app.import_sessions(import_sessions_all.batch_size);
        commit;
        exit when v_moved = 0;
        imported := imported + v_moved;
        v_batches := v_batches + 1;
        if v_batches % 10 = 0 then
            raise notice 'import: % batches, % sessions', v_batches, imported;
        end if;
    end loop;
end
$$;
comment on procedure app.import_sessions_all(integer, bigint) is
    'DBA tool: CALL app.import_sessions_all() outside a transaction block; moves app.session_import into '
    'app.focus_sessions in committed batches of batch_size. imported: how many in all.';
