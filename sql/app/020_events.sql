-- The events outbox: ids in commit order, the doorbell, append-only with pruning, and the triggers
-- that turn changes to users, friendships, sessions, the catalog and tips into events.
-- Bound in 0007_events.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Ids in commit order without a commit lock (0032_event_ids.sql, 2026-12-01). An id is
-- made from the writing transaction's id (xid8) and a count within it:
--     id = app.event_settings.id_offset + (xid << 16) + n,  n = 0, 1, ... 65535
-- so all of a transaction's events lie in one block of ids, blocks in xid order, above every
-- id made before 0032 (id_offset). A transaction's xid is given at its first write, above
-- every xid given before, so a transaction still in progress or not yet writing (its xid is
-- or will be >= the oldest one running) can only commit ids at or above app.events_horizon(); readers return ids below the horizon only, so no id below one a
-- reader was given can appear later. Writers never wait for one another.
-- The block's start and end are read once per transaction (the first event; 0033, 2026-12-01) and
-- kept in transaction-local settings, as the count was before: a later event of the
-- transaction reads the next id from a setting, without a query. A rolled-back savepoint rolls
-- the settings back with its events, so the ids it gave are given again (to rows that exist).
-- Guarantees: a fresh id, increasing within the transaction, in the caller's block; more than
-- 65536 events in one transaction is 54000 program_limit_exceeded (split the transaction).
create or replace function app.next_event_id()
returns bigint
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_next bigint := nullif(current_setting('focus.event_next', true), '')::bigint;
begin
    if v_next is null then
        v_next := (select s.id_offset from app.event_settings s) + (pg_current_xact_id()::text::bigint << 16);
        perform set_config('focus.event_last', (v_next + 65535)::text, true);  -- local: ends with the transaction
    elsif v_next > current_setting('focus.event_last')::bigint then
        raise exception 'at most 65536 events per transaction (event ids are made of the transaction id)'
            using errcode = 'program_limit_exceeded';
    end if;
    perform set_config('focus.event_next', (v_next + 1)::text, true);
    return v_next;
end
$$;
comment on function app.next_event_id() is
    'The default of app.events.id: id_offset + (transaction id << 16) + the count of events this transaction '
    'wrote before; ids of transactions still running lie at or above app.events_horizon().';

-- The horizon: the lowest event id a transaction still running (or not yet begun) may commit.
-- Readers return ids below it only. It is the block of the oldest transaction still running
-- (pg_snapshot_xmin of the current snapshot). A reader inside a transaction that has written
-- (pgTAP files, a DBA's session; the server reads in statements of their own) is not held back
-- by itself: the oldest other one running (or the next xid to be given) decides, and never
-- less than the end of its own block, so it reads its own events. (On a hot standby readers
-- have no xid, and pg_snapshot_xmin is the primary's oldest running xid as replayed.)
-- Guarantees: for a reader without an xid (every server read), no row with an id below the
-- result can become visible after this snapshot.
create or replace function app.events_horizon()
returns bigint
language plpgsql stable
set search_path = public, pg_temp
as $$
declare
    v_snapshot pg_snapshot := pg_current_snapshot();
    v_own xid8 := pg_current_xact_id_if_assigned();
    v_xid bigint;
begin
    if v_own is null then
        v_xid := pg_snapshot_xmin(v_snapshot)::text::bigint;
    else
        v_xid := greatest(coalesce((select min(x::text::bigint) from pg_snapshot_xip(v_snapshot) x),
                                   pg_snapshot_xmax(v_snapshot)::text::bigint),
                          v_own::text::bigint + 1);
    end if;
    return (select s.id_offset from app.event_settings s) + (v_xid << 16);
end
$$;
comment on function app.events_horizon() is
    'The lowest event id that a transaction still running may yet commit: readers (api.events_list, '
    'api.newest_event_id) return ids below it, so an id never appears below one already read.';

-- The doorbell for broadcasts: 'focus_events' with '*:<event id>', committed with the row (bound
-- for user_id null only since 0032: personal events are rung by api.events_ring's polling).
create or replace function app.events_notify()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform pg_notify('focus_events', coalesce(new.user_id::text, '*') || ':' || new.id);
    return null;
end
$$;

-- Append-only: no update, no truncate, and a delete only by app.prune_events.
create or replace function app.events_append_only()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'DELETE' and current_setting('focus.pruning_events', true) = 'on' then
        return null;
    end if;
    raise exception 'events is append-only (app.prune_events deletes old rows)' using errcode = 'restrict_violation';
end
$$;

-- Removes events older than the retention and returns how many, raising pruned_through to the
-- highest id removed. app.events is partitioned by day of created_at (0045; sql/app/160_partitions.sql):
-- a partition whose upper bound is past the retention is dropped whole (at most one a call,
-- its lock waited for at most 200 ms: app.partition_drop), so an event is kept for the
-- retention and gone within a day after; rows past the retention in the default partition
-- (none, unless a day's partition was missing) are deleted, at most `batch` of them (null: all).
-- The prune job (api.job_step) calls it last in each step, so the drop's lock on app.events is
-- held only until the step commits; a DBA may run either form any time: `select app.prune_events();`.
create or replace function app.prune_events(batch integer)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_retention interval := (select s.retention from app.event_settings s);
    v_part regclass := app.partition_expired('app.events', v_retention);
    v_count integer := 0;
    v_rows integer;
    v_last bigint;
    v_part_last bigint;
begin
    -- The default partition alone: app.events' append-only trigger guards the parent's statements.
    with gone as (
        delete from app.events_part_default e
        where e.ctid in (select o.ctid from app.events_part_default o
                         where o.created_at < now() - v_retention
                         order by o.created_at limit batch)
        returning e.id
    )
    select count(*)::integer, max(gone.id) into v_count, v_last from gone;
    if v_part is not null then
        execute format('select count(*)::integer, max(id) from %s', v_part) into v_rows, v_part_last;
        if app.partition_drop(v_part) then
            v_count := v_count + v_rows;
            v_last := greatest(v_last, v_part_last);
        end if;
    end if;
    if v_last is not null then
        update app.event_settings s set pruned_through = greatest(s.pruned_through, v_last);
    end if;
    return v_count;
end
$$;
comment on function app.prune_events(integer) is
    'Removes events older than app.event_settings.retention: drops at most one expired day partition whole, and deletes '
    'at most `batch` (null: all) from the default partition; raises pruned_through to the highest id removed. Run by '
    'the prune job (api.job_step); a DBA may run it any time.';

-- Every event past the retention at once, in one transaction (a DBA's; the prune job goes one
-- partition a step): the default partition's old rows deleted, then every expired partition
-- dropped by app.partitions_drop_expired, which counts them all before the first drop, so
-- app.events is locked only for the drops and the commit.
create or replace function app.prune_events()
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_retention interval := (select s.retention from app.event_settings s);
    v_count integer;
    v_last bigint;
    v_dropped record;
begin
    -- The default partition alone: app.events' append-only trigger guards the parent's statements.
    with gone as (
        delete from app.events_part_default e
        where e.created_at < now() - v_retention
        returning e.id
    )
    select count(*)::integer, max(gone.id) into v_count, v_last from gone;
    select * into v_dropped from app.partitions_drop_expired('app.events', v_retention);
    v_count := v_count + v_dropped.rows::integer;
    v_last := greatest(v_last, v_dropped.last_id);
    if v_last is not null then
        update app.event_settings s set pruned_through = greatest(s.pruned_through, v_last);
    end if;
    return v_count;
end
$$;
comment on function app.prune_events() is
    'Removes every event older than app.event_settings.retention in one transaction: the default partition''s old rows '
    'deleted, every expired day partition dropped (app.partitions_drop_expired: all counted before the first drop). A DBA '
    'may run it any time.';

-- friend.updated for every friend of `user_id`: one row each, none without friends.
create or replace function app.tell_friends(user_id uuid)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if exists (select from app.friendships f
               where (f.user_low = tell_friends.user_id or f.user_high = tell_friends.user_id)
                 and f.status = 'accepted') then
        insert into app.events (user_id, type, payload)
        select case when f.user_low = tell_friends.user_id then f.user_high else f.user_low end,
               'friend.updated', jsonb_build_object('user_id', tell_friends.user_id)
        from app.friendships f
        where (f.user_low = tell_friends.user_id or f.user_high = tell_friends.user_id) and f.status = 'accepted'
        order by 1;
    end if;
end
$$;

-- Users: a new display name or bio → friends. The binding decides (0101: when either changes),
-- so the body compares nothing; until 0101 it also wrote balance.changed and read the bio
-- through to_jsonb of the whole row to tell the two apart (docs/performance.md, "Events by
-- instruction count"). A new column friends see joins the binding's WHEN clause in a migration.
create or replace function app.users_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.tell_friends(new.id);
    return null;
end
$$;

-- A new balance → the user, however it moved (bound when the balance changes: 0101).
create or replace function app.users_events_balance()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    insert into app.events (user_id, type, payload)
    values (new.id, 'balance.changed', jsonb_build_object('balance', new.balance));
    return null;
end
$$;

-- Selections and avatars: what friends see of a user.
create or replace function app.tell_friends_of_row()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.tell_friends(case when tg_op = 'DELETE' then old.user_id else new.user_id end);
    return null;
end
$$;

-- Sessions: friends show today's minutes (sessions that ended today, UTC, as api.today_minutes
-- counts them), so a change of what a session adds to today tells the friends.
create or replace function app.focus_sessions_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_today timestamptz := date_trunc('day', now() at time zone 'UTC') at time zone 'UTC';
    v_before integer := 0;
    v_after integer := 0;
begin
    if tg_op in ('UPDATE', 'DELETE') and old.ended_at >= v_today then
        v_before := coalesce(old.minutes, 0);
    end if;
    if tg_op in ('INSERT', 'UPDATE') and new.ended_at >= v_today then
        v_after := coalesce(new.minutes, 0);
    end if;
    if v_before <> v_after then
        perform app.tell_friends(case when tg_op = 'DELETE' then old.user_id else new.user_id end);
    end if;
    return null;
end
$$;

-- Friendship transitions, from their history row: the other side of the pair hears of it.
create or replace function app.friendship_events_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_other uuid := case when new.actor = new.user_low then new.user_high else new.user_low end;
begin
    insert into app.events (user_id, type, payload)
    values (v_other,
            case new.action when 'asked' then 'friend_request.received'
                            when 'accepted' then 'friend_request.accepted'
                            when 'declined' then 'friend_request.ended'
                            when 'cancelled' then 'friend_request.ended'
                            when 'removed' then 'friend.removed' end,
            case when new.action in ('declined', 'cancelled') then jsonb_build_object('request_id', new.request_id)
                 when new.action = 'removed' then jsonb_build_object('user_id', new.actor)
                 else jsonb_build_object('request_id', new.request_id, 'user_id', new.actor) end);
    return null;
end
$$;

create or replace function app.bump_tips_version()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.tips_version set version = version + 1, changed_at = now();
    return null;
end
$$;

-- catalog.changed / tips.changed: one broadcast row per statement that changed a row (the
-- transition table is empty for an idempotent re-seed, which writes nothing). An upsert that
-- both inserts and updates fires two statement triggers; the second finds its version already
-- announced and writes nothing. TG_ARGV[0] is the event type.
create or replace function app.announce_version()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_type text := tg_argv[0];
    v_version bigint;
begin
    if not exists (select from changed) then
        return null;
    end if;
    v_version := case v_type when 'catalog.changed' then (select v.version from app.catalog_version v)
                             else (select v.version from app.tips_version v) end;
    if (select e.payload -> 'version' from app.events e
        where e.user_id is null and e.type = v_type order by e.id desc limit 1) = to_jsonb(v_version) then
        return null;
    end if;
    insert into app.events (user_id, type, payload) values (null, v_type, jsonb_build_object('version', v_version));
    return null;
end
$$;

-- Bound in 0018_names_and_token_ends.sql: a token deleted or revoked (or cut short) rings its
-- user's streams and long-polls, which ask api.events_list again and end with 401.
-- Rings a user's live clients when one of their tokens stops signing in (see above).
create or replace function app.auth_tokens_notify_end()
returns trigger
language plpgsql
as $$
begin
    perform pg_notify('focus_events', old.user_id::text || ':token');
    return null;
end
$$;
