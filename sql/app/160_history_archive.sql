-- The archives of the kept history (2026-12-06), in batches a DBA runs beside live traffic
-- (docs/operations.md, "Growth: the tables that are kept"): the ledger's entries before a horizon
-- summed per person into app.coin_ledger_archive_totals (tables in 0050, the delete switch in
-- 0051), the friendship events counted per day into app.friendship_event_day_totals (0052, 0053),
-- the tips shown compacted to one row per person and tip in app.tip_views_compacted (0054), the
-- finished focus sessions moved whole to app.focus_sessions_archived (0055).
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- The arguments every archive's batch takes, checked alike (22023 invalid_parameter_value):
-- `batch_size` at least 1; `before` a UTC midnight (whole days move, so the day counters'
-- recount reads the days before the horizon as one total) at least 90 days ago (recent rows
-- stay for the person's export, support, retried ratings and resent sessions).
create or replace function app.archive_arguments_check(before timestamptz, batch_size integer)
returns void
language plpgsql stable
set search_path = public, pg_temp
as $$
begin
    if batch_size is null or batch_size < 1 then
        raise exception 'batch_size is at least 1' using errcode = 'invalid_parameter_value';
    end if;
    if before is null or before <> (date_trunc('day', before at time zone 'UTC') at time zone 'UTC') then
        raise exception 'before is a UTC midnight' using errcode = 'invalid_parameter_value';
    end if;
    if before > now() - interval '90 days' then
        raise exception 'before is at least 90 days ago' using errcode = 'invalid_parameter_value';
    end if;
end
$$;
comment on function app.archive_arguments_check(timestamptz, integer) is
    'Raises 22023 unless batch_size is at least 1 and before is a UTC midnight at least 90 days ago: the arguments of '
    'every archive''s batch.';

-- One batch of the archive: at most `batch_size` entries created before `before` (oldest first;
-- entries another archive running at once holds are skipped: FOR UPDATE SKIP LOCKED) are
-- deleted from app.coin_ledger and added to their person's totals (per kind, and per item for
-- purchases), in the caller's transaction; returns how many. So a balance equals the archived
-- coins plus the live entries at every commit, and a batch run again after its commit finds
-- other entries or none: running the archive twice archives once.
-- Bonus entries stay live: a room's card shows each member's bonus from its entry (api.room_json).
-- `before` must be a UTC midnight at least 90 days ago (whole days move, so the day counters'
-- recount reads the days before the horizon as one total, report.counter_reconciliation_between;
-- recent entries stay for the person's export and for support). It raises the horizon in
-- app.ledger_archive, never lowers it.
create or replace function app.archive_ledger(before timestamptz, batch_size integer default 10000)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_moved integer;
begin
    perform app.archive_arguments_check(before, batch_size);
    update app.ledger_archive a set archived_before = archive_ledger.before
    where a.archived_before < archive_ledger.before;

    perform set_config('focus.ledger_archive', 'on', true);
    -- Every statement of a WITH runs once, read or not: the totals are written with the delete.
    with batch as (
        select c.id from app.coin_ledger c
        where c.created_at < archive_ledger.before and c.entry <> 'bonus'
        order by c.created_at  -- the coin_ledger_time index, read from its start
        limit archive_ledger.batch_size
        for update skip locked
    ), moved as (
        delete from app.coin_ledger c using batch b where c.id = b.id
        returning c.user_id, c.entry, c.item_id, c.amount
    ), totals as (
        insert into app.coin_ledger_archive_totals as t (user_id, entry, item_id, entries, coins)
        select m.user_id, m.entry, m.item_id, count(*), sum(m.amount)
        from moved m
        group by 1, 2, 3 order by 1, 2, 3
        on conflict on constraint coin_ledger_archive_totals_key do update
            set entries = t.entries + excluded.entries, coins = t.coins + excluded.coins
    )
    select count(*)::integer into v_moved from moved;
    perform set_config('focus.ledger_archive', 'off', true);
    return v_moved;
end
$$;
comment on function app.archive_ledger(timestamptz, integer) is
    'DBA tool: archives one batch (at most batch_size) of ledger entries created before `before` (a UTC midnight at least '
    '90 days ago; bonus entries stay) into app.coin_ledger_archive_totals; how many. CALL app.archive_ledger_all(before) loops it.';

-- The loop of every archive tool below: `batch`(before, batch_size) a transaction at a time, each
-- batch committed before the next, until a batch moves nothing (nothing before `before` is left,
-- or what is left is held by another run at once). An interrupted run keeps its committed
-- batches; calling it again does the rest. A NOTICE every hundred batches. `done` answers the
-- total. No SET clause (a procedure with one may not commit): every name is schema-qualified.
create or replace procedure app.in_batches(batch regproc, before timestamptz, batch_size integer,
                                           inout done bigint default 0)
language plpgsql
as $$
declare
    v_schema name;
    v_name name;
    v_moved integer;
    v_batches integer := 0;
begin
    select n.nspname, p.proname into v_schema, v_name
    from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
    where p.oid = in_batches.batch;
    done := 0;
    loop
        execute format('select %I.%I($1, $2)', v_schema, v_name) into v_moved
            using in_batches.before, in_batches.batch_size;
        commit;
        exit when v_moved = 0;
        done := done + v_moved;
        v_batches := v_batches + 1;
        if v_batches % 100 = 0 then
            raise notice '%: % batches, % rows', in_batches.batch, v_batches, done;
        end if;
    end loop;
end
$$;
comment on procedure app.in_batches(regproc, timestamptz, integer, bigint) is
    'The loop of the archive tools (app.archive_ledger_all and the others): batch(before, batch_size) in committed '
    'transactions until one moves nothing. done: how many in all.';

-- The whole archive: app.archive_ledger a committed batch at a time (app.in_batches). CALL it
-- from psql outside a transaction block; `archived` answers the total.
create or replace procedure app.archive_ledger_all(before timestamptz, batch_size integer default 10000,
                                                   inout archived bigint default 0)
language plpgsql
as $$
begin
    call app.in_batches('app.archive_ledger', archive_ledger_all.before,
                        archive_ledger_all.batch_size, archived);
end
$$;
comment on procedure app.archive_ledger_all(timestamptz, integer, bigint) is
    'DBA tool: CALL app.archive_ledger_all(before => ...) outside a transaction block; archives the ledger entries created '
    'before `before` into app.coin_ledger_archive_totals in committed batches of batch_size. archived: how many in all.';

-- One batch of the friendship history's archive: at most `batch_size` events created before
-- `before` (oldest first, SKIP LOCKED as above) deleted from app.friendship_events and counted
-- in app.friendship_event_day_totals per UTC day and action, in the caller's transaction;
-- returns how many. The funnel (report.friendship_funnel_per_day) is the same at every commit;
-- run again, it finds other events or none. `before`: a UTC midnight at least 90 days ago
-- (recent history stays for support reading a pair's past).
create or replace function app.archive_friendship_events(before timestamptz, batch_size integer default 10000)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_moved integer;
begin
    perform app.archive_arguments_check(before, batch_size);
    perform set_config('focus.friendship_archive', 'on', true);
    with batch as (
        select e.id from app.friendship_events e
        where e.created_at < archive_friendship_events.before
        order by e.created_at  -- the friendship_events_time index, read from its start
        limit archive_friendship_events.batch_size
        for update skip locked
    ), moved as (
        delete from app.friendship_events e using batch b where e.id = b.id
        returning (e.created_at at time zone 'UTC')::date as day, e.action
    ), totals as (
        insert into app.friendship_event_day_totals as t (day, action, events)
        select m.day, m.action, count(*)
        from moved m
        group by 1, 2 order by 1, 2
        on conflict on constraint friendship_event_day_totals_pkey do update set events = t.events + excluded.events
    )
    select count(*)::integer into v_moved from moved;
    perform set_config('focus.friendship_archive', 'off', true);
    return v_moved;
end
$$;
comment on function app.archive_friendship_events(timestamptz, integer) is
    'DBA tool: archives one batch (at most batch_size) of friendship events created before `before` (a UTC midnight at '
    'least 90 days ago) into app.friendship_event_day_totals; how many. CALL app.archive_friendship_events_all(before) loops it.';

-- The whole friendship history's archive, a committed batch at a time (app.in_batches).
create or replace procedure app.archive_friendship_events_all(before timestamptz, batch_size integer default 10000,
                                                              inout archived bigint default 0)
language plpgsql
as $$
begin
    call app.in_batches('app.archive_friendship_events', archive_friendship_events_all.before,
                        archive_friendship_events_all.batch_size, archived);
end
$$;
comment on procedure app.archive_friendship_events_all(timestamptz, integer, bigint) is
    'DBA tool: CALL app.archive_friendship_events_all(before => ...) outside a transaction block; archives the friendship '
    'events created before `before` into app.friendship_event_day_totals in committed batches. archived: how many in all.';

-- One batch of the tips' compaction: at most `batch_size` views shown before `before` (oldest
-- first, SKIP LOCKED as above) deleted from app.tip_views and folded into app.tip_views_compacted,
-- in the caller's transaction; returns how many. Per person and tip the row keeps the newest
-- view (by shown_at, then id: the one the rating's tip choice reads, max(shown_at)) and adds the
-- count, so the choice, report.tips_shown_per_level and the export's count are the same at every
-- commit; run again, it finds other views or none. `before`: a UTC midnight at least 90 days ago
-- (as the ledger's: a retried rating of a recent session still answers its own tip).
create or replace function app.compact_tip_views(before timestamptz, batch_size integer default 10000)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_moved integer;
begin
    perform app.archive_arguments_check(before, batch_size);
    with batch as (
        select v.id from app.tip_views v
        where v.shown_at < compact_tip_views.before
        order by v.shown_at  -- the tip_views_time index, read from its start
        limit compact_tip_views.batch_size
        for update skip locked
    ), moved as (
        delete from app.tip_views v using batch b where v.id = b.id
        returning v.id, v.user_id, v.tip_id, v.session_id, v.shown_at
    ), newest as (
        select distinct on (m.user_id, m.tip_id) m.user_id, m.tip_id, m.id, m.session_id, m.shown_at,
               count(*) over (partition by m.user_id, m.tip_id) as views
        from moved m
        order by m.user_id, m.tip_id, m.shown_at desc, m.id desc
    ), compacted as (
        insert into app.tip_views_compacted as c (user_id, tip_id, view_id, session_id, shown_at, views)
        select n.user_id, n.tip_id, n.id, n.session_id, n.shown_at, n.views
        from newest n
        order by 1, 2
        on conflict on constraint tip_views_compacted_pkey do update
            set views = c.views + excluded.views,
                view_id = case when (excluded.shown_at, excluded.view_id) > (c.shown_at, c.view_id) then excluded.view_id else c.view_id end,
                session_id = case when (excluded.shown_at, excluded.view_id) > (c.shown_at, c.view_id) then excluded.session_id else c.session_id end,
                shown_at = greatest(c.shown_at, excluded.shown_at)
    )
    select count(*)::integer into v_moved from moved;
    return v_moved;
end
$$;
comment on function app.compact_tip_views(timestamptz, integer) is
    'DBA tool: compacts one batch (at most batch_size) of tip views shown before `before` (a UTC midnight at least 90 days '
    'ago) into app.tip_views_compacted; how many. CALL app.compact_tip_views_all(before) loops it.';

-- The whole compaction, a committed batch at a time (app.in_batches).
create or replace procedure app.compact_tip_views_all(before timestamptz, batch_size integer default 10000,
                                                      inout compacted bigint default 0)
language plpgsql
as $$
begin
    call app.in_batches('app.compact_tip_views', compact_tip_views_all.before,
                        compact_tip_views_all.batch_size, compacted);
end
$$;
comment on procedure app.compact_tip_views_all(timestamptz, integer, bigint) is
    'DBA tool: CALL app.compact_tip_views_all(before => ...) outside a transaction block; compacts the tip views shown '
    'before `before` into app.tip_views_compacted in committed batches. compacted: how many views in all.';

-- One batch of the focus sessions' move: at most `batch_size` sessions that ended before
-- `before` (oldest first, SKIP LOCKED as above) deleted from app.focus_sessions and inserted,
-- unchanged, into app.focus_sessions_archived, in the caller's transaction; returns how many.
-- Every reader of a person's sessions reads both (app.user_sessions), so they answer the same
-- at every commit; run again, it finds other sessions or none.
-- The delete's row triggers are skipped as the bulk import skips them (focus.bulk_import): a
-- moved session stays in the rollups, the UTC-day totals and the counts, and is no event.
-- A session something live still points at stays live, so no reference breaks and no cascade
-- fires: its earn entry (app.coin_ledger.session_id, until app.archive_ledger takes it: archive
-- the ledger first), a room's member (app.room_members.session_id: the room's card reads it)
-- or a tip view (app.tip_views.session_id: compacted first, app.compact_tip_views). Each of
-- the three is read by an index on the column (0056, 0057, room_members' unique key), as are
-- the delete's own foreign-key checks.
-- `before`: a UTC midnight at least 90 days ago (recent sessions are rated, resent and paid).
create or replace function app.archive_focus_sessions(before timestamptz, batch_size integer default 10000)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_moved integer;
begin
    perform app.archive_arguments_check(before, batch_size);
    perform set_config('focus.bulk_import', 'on', true);
    with batch as (
        select s.id from app.focus_sessions s
        where s.ended_at < archive_focus_sessions.before
          and not exists (select from app.coin_ledger c where c.session_id = s.id and c.entry = 'earn')
          and not exists (select from app.room_members m where m.session_id = s.id)
          and not exists (select from app.tip_views v where v.session_id = s.id)
        order by s.ended_at  -- the focus_sessions_end index, read from its start
        limit archive_focus_sessions.batch_size
        for update skip locked
    ), moved as (
        delete from app.focus_sessions s using batch b where s.id = b.id
        returning s.*
    ), archived as (
        insert into app.focus_sessions_archived
        select m.* from moved m
        order by m.user_id, m.started_at
    )
    select count(*)::integer into v_moved from moved;
    perform set_config('focus.bulk_import', 'off', true);
    return v_moved;
end
$$;
comment on function app.archive_focus_sessions(timestamptz, integer) is
    'DBA tool: moves one batch (at most batch_size) of focus sessions that ended before `before` (a UTC midnight at least '
    '90 days ago; those an earn entry, a room or a tip view points at stay) to app.focus_sessions_archived; how many. '
    'CALL app.archive_focus_sessions_all(before) loops it.';

-- The whole move, a committed batch at a time (app.in_batches).
create or replace procedure app.archive_focus_sessions_all(before timestamptz, batch_size integer default 10000,
                                                           inout archived bigint default 0)
language plpgsql
as $$
begin
    call app.in_batches('app.archive_focus_sessions', archive_focus_sessions_all.before,
                        archive_focus_sessions_all.batch_size, archived);
end
$$;
comment on procedure app.archive_focus_sessions_all(timestamptz, integer, bigint) is
    'DBA tool: CALL app.archive_focus_sessions_all(before => ...) outside a transaction block; moves the focus sessions '
    'that ended before `before` to app.focus_sessions_archived in committed batches. archived: how many in all.';
