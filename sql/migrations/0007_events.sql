-- 0007 events: an outbox the phones read (GET /events), written in the same transaction as the
-- change it reports, so a rolled-back change reports nothing. Triggers on the tables that
-- change write it: one place per kind of change, whoever made the change (an endpoint, a DBA's
-- app.grant_coins, a re-seed). Each row rings the doorbell with pg_notify; the table is the
-- truth, the notification only says "read after your cursor".
--
--   type                       to                               data
--   friend_request.received    the receiver                     {request_id, user_id: the sender}
--   friend_request.accepted    the sender (not the acceptor)    {request_id, user_id: the new friend}
--   friend_request.ended       the other side: the sender when  {request_id}
--                              declined, the receiver when cancelled (never says which)
--   friend.removed             the friend who did not remove    {user_id: who removed}
--   friend.updated             each friend of the user whose    {user_id}
--                              name, selection, avatar or today's minutes changed
--   balance.changed            the user                         {balance}
--   catalog.changed            everyone (user_id null)          {version}
--   tips.changed               everyone (user_id null)          {version}
--
-- The one who acted hears nothing of their own act: their answer already says it.

create table app.events (
    id          bigint generated always as identity primary key,  -- the cursor
    user_id     uuid,                                              -- the recipient; null: everyone
    type        text not null check (type in (
                    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
                    'friend.removed', 'friend.updated', 'balance.changed',
                    'catalog.changed', 'tips.changed')),
    payload     jsonb not null default '{}' check (jsonb_typeof(payload) = 'object' and length(payload::text) <= 1000),
    created_at  timestamptz not null default now(),
    check ((user_id is null) = (type in ('catalog.changed', 'tips.changed')))
);
-- A reader asks for `(user_id = $1 or user_id is null) and id > $2 order by id`: one index for
-- each half (api.events_list unions two index scans).
create index events_user_id on app.events (user_id, id) where user_id is not null;
create index events_broadcast on app.events (id) where user_id is null;
create index events_created_at on app.events (created_at);  -- app.prune_events
-- No foreign key to app.users, on purpose: its check takes a KEY SHARE lock on the recipient's
-- row while the commit-order lock below is held, and a friend who holds their own row
-- (api.lock_user, FOR UPDATE, as a session finish does) while waiting for that lock would
-- deadlock with it (reproduced with two friends renaming at once, one of them holding its row
-- first). Recipients always come from rows that reference app.users (friendships, the changed
-- user's own row); no account is deleted today (the ledger forbids it), and an account
-- deletion would have to delete its events itself (through app.prune_events' guard).
comment on table app.events is
    'What each user should hear about, one row per recipient (user_id null: everyone). Append-only; '
    'app.prune_events deletes what is older than app.event_settings.retention. Ids become visible in '
    'id order (see app.events_commit_order), so a reader''s cursor never skips a late commit.';

-- Settings a DBA may change, and the pruning horizon (kept by app.prune_events, not by hand).
create table app.event_settings (
    singleton             boolean primary key default true check (singleton),
    retention             interval not null default interval '7 days' check (retention >= interval '1 hour'),
    max_streams_per_user  integer not null default 3 check (max_streams_per_user between 1 and 100),
    pruned_through        bigint not null default 0 check (pruned_through >= 0)
);
comment on table app.event_settings is
    'retention: how long events are kept; max_streams_per_user: open GET /events streams per user '
    '(the server refuses more with 429). pruned_through: the highest id app.prune_events deleted; a '
    'cursor below it may have missed events and is answered with a resync.';
insert into app.event_settings default values;

-- Commit order = id order. An identity hands out ids when rows are inserted, not when their
-- transactions commit: without this, id 11 could commit and be read before id 10 commits, and
-- a reader past 11 would never see 10. So each statement inserting events first takes one
-- transaction-level lock, held to commit: event-writing transactions commit one after another,
-- in id order (the lock is released after the commit is visible). Writers insert only when
-- there is a recipient, so a change nobody hears about takes no lock.
create function app.events_commit_order()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform pg_advisory_xact_lock(hashtext('app.events: commit order'));
    return null;
end
$$;
create trigger events_commit_order
before insert on app.events
for each statement execute function app.events_commit_order();

-- The doorbell: 'focus_events' with '<user id or *>:<event id>', committed with the row.
create function app.events_notify()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform pg_notify('focus_events', coalesce(new.user_id::text, '*') || ':' || new.id);
    return null;
end
$$;
create trigger events_notify
after insert on app.events
for each row execute function app.events_notify();

-- Append-only: no update, no truncate, and a delete only by app.prune_events.
create function app.events_append_only()
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
create trigger events_append_only
before update or delete or truncate on app.events
for each statement execute function app.events_append_only();

-- Deletes events older than the retention and returns how many. Run hourly by the server
-- (api.events_prune, from its listener) or by a DBA: `select app.prune_events();`.
create function app.prune_events()
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
    select count(*), max(gone.id) into v_count, v_last from gone;
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
create function app.tell_friends(user_id uuid)
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

-- Users: a new display name → friends; a new balance → the user (however it moved).
create function app.users_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if new.display_name is distinct from old.display_name then
        perform app.tell_friends(new.id);
    end if;
    if new.balance is distinct from old.balance then
        insert into app.events (user_id, type, payload)
        values (new.id, 'balance.changed', jsonb_build_object('balance', new.balance));
    end if;
    return null;
end
$$;
create trigger users_events
after update on app.users
for each row
when (new.display_name is distinct from old.display_name or new.balance is distinct from old.balance)
execute function app.users_events();

-- Selections and avatars: what friends see of a user.
create function app.tell_friends_of_row()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.tell_friends(case when tg_op = 'DELETE' then old.user_id else new.user_id end);
    return null;
end
$$;
create trigger user_selections_events
after insert or delete on app.user_selections
for each row execute function app.tell_friends_of_row();
create trigger user_selections_change_events
after update on app.user_selections
for each row when (new.item_id is distinct from old.item_id)
execute function app.tell_friends_of_row();
create trigger avatars_events
after insert or update or delete on app.avatars
for each row execute function app.tell_friends_of_row();

-- Sessions: friends show today's minutes (sessions that ended today, UTC, as api.today_minutes
-- counts them), so a change of what a session adds to today tells the friends.
create function app.focus_sessions_events()
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
create trigger focus_sessions_events
after insert or update or delete on app.focus_sessions
for each row execute function app.focus_sessions_events();

-- Friendship transitions, from their history row: the other side of the pair hears of it.
create function app.friendship_events_events()
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
create trigger friendship_events_events
after insert on app.friendship_events
for each row execute function app.friendship_events_events();

-- Tips get a version like the catalog's, bumped by every row that really changes.
create table app.tips_version (
    singleton  boolean primary key default true check (singleton),
    version    bigint not null default 1,
    changed_at timestamptz not null default now()
);
insert into app.tips_version default values;

create function app.bump_tips_version()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.tips_version set version = version + 1, changed_at = now();
    return null;
end
$$;
create trigger mindfulness_tips_bump_version
after insert or update or delete on app.mindfulness_tips
for each row execute function app.bump_tips_version();

-- catalog.changed / tips.changed: one broadcast row per statement that changed a row (the
-- transition table is empty for an idempotent re-seed, which writes nothing). An upsert that
-- both inserts and updates fires two statement triggers; the second finds its version already
-- announced and writes nothing. TG_ARGV[0] is the event type.
create function app.announce_version()
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
create trigger shop_items_inserted_events after insert on app.shop_items
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger shop_items_updated_events after update on app.shop_items
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger shop_items_deleted_events after delete on app.shop_items
referencing old table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger mindfulness_tips_inserted_events after insert on app.mindfulness_tips
referencing new table as changed for each statement execute function app.announce_version('tips.changed');
create trigger mindfulness_tips_updated_events after update on app.mindfulness_tips
referencing new table as changed for each statement execute function app.announce_version('tips.changed');
create trigger mindfulness_tips_deleted_events after delete on app.mindfulness_tips
referencing old table as changed for each statement execute function app.announce_version('tips.changed');
