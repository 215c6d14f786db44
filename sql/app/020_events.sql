-- The events outbox: commit order, the doorbell, append-only with pruning, and the triggers
-- that turn changes to users, friendships, sessions, the catalog and tips into events.
-- Bound in 0007_events.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Commit order = id order. An identity hands out ids when rows are inserted, not when their
-- transactions commit: without this, id 11 could commit and be read before id 10 commits, and
-- a reader past 11 would never see 10. So each statement inserting events first takes one
-- transaction-level lock, held to commit: event-writing transactions commit one after another,
-- in id order (the lock is released after the commit is visible). Writers insert only when
-- there is a recipient, so a change nobody hears about takes no lock.
create or replace function app.events_commit_order()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform pg_advisory_xact_lock(hashtext('app.events: commit order'));
    return null;
end
$$;

-- The doorbell: 'focus_events' with '<user id or *>:<event id>', committed with the row.
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

-- Deletes events older than the retention and returns how many. Run hourly by the server
-- (api.events_prune, from its listener) or by a DBA: `select app.prune_events();`.
create or replace function app.prune_events()
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_count integer;
    v_last bigint;
begin
    perform set_config('focus.pruning_events', 'on', true);
    with gone as (
        delete from app.events e
        where e.created_at < now() - (select s.retention from app.event_settings s)
        returning e.id
    )
    select count(*)::integer, max(gone.id) into v_count, v_last from gone;
    perform set_config('focus.pruning_events', 'off', true);
    if v_last is not null then
        update app.event_settings s set pruned_through = greatest(s.pruned_through, v_last);
    end if;
    return v_count;
end
$$;
comment on function app.prune_events() is
    'Deletes events older than app.event_settings.retention and raises pruned_through to the highest '
    'id deleted. Called hourly by the server through api.events_prune; a DBA may run it any time.';

-- friend.updated for every friend of `user_id`: one row each, none (and no lock) without friends.
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

-- Users: a new display name or bio → friends; a new balance → the user (however it moved).
-- The bio is read through to_jsonb: this definition is loaded before the migrations on an
-- upgrade, and 0018's name clean-up fires this trigger before 0019 adds the column.
create or replace function app.users_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if new.display_name is distinct from old.display_name
       or to_jsonb(new) -> 'bio' is distinct from to_jsonb(old) -> 'bio' then
        perform app.tell_friends(new.id);
    end if;
    if new.balance is distinct from old.balance then
        insert into app.events (user_id, type, payload)
        values (new.id, 'balance.changed', jsonb_build_object('balance', new.balance));
    end if;
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
