-- Push: the outbox's trigger, quiet hours, and push tokens ending with their sign-in.
-- Bound in 0023_push.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- When a push for `user_id` may go, from `at`: `at` itself outside their quiet hours, else the
-- end of the quiet hours (local wall time in their time zone; a window may run past midnight,
-- 22:00 to 07:00). A local end time skipped by a clock change resolves as PostgreSQL resolves
-- it (the hour after the gap).
create or replace function app.push_send_after(user_id uuid, at timestamptz)
returns timestamptz
language plpgsql
stable
set search_path = public, pg_temp
as $$
declare
    v_zone text;
    v_start time;
    v_end time;
    v_local timestamp;
    v_now time;
begin
    select u.time_zone, s.quiet_start, s.quiet_end into v_zone, v_start, v_end
    from app.users u left join app.push_settings s on s.user_id = u.id
    where u.id = push_send_after.user_id;
    if v_start is null then
        return push_send_after.at;
    end if;
    v_local := push_send_after.at at time zone v_zone;
    v_now := v_local::time;
    if v_start < v_end and v_now >= v_start and v_now < v_end then
        return (v_local::date + v_end) at time zone v_zone;
    elsif v_start > v_end and v_now >= v_start then
        return (v_local::date + 1 + v_end) at time zone v_zone;
    elsif v_start > v_end and v_now < v_end then
        return (v_local::date + v_end) at time zone v_zone;
    end if;
    return push_send_after.at;
end
$$;

-- An event of a type in app.push_types queues one outbox row per push token of its recipient,
-- in the event's transaction. The recipient's tokens whose sign-in expired are deleted first
-- (a revoked or deleted sign-in's went at once). Nothing is queued when the recipient muted
-- the type, or when either of the two blocked the other (the actor is the payload's user_id).
-- The row holds the event's ids only (no address, no name). The trigger fires for the types
-- of app.push_types only (its WHEN clause, app.bind_events_push); the type check below keeps
-- the function right if it is ever bound without that clause.
create or replace function app.events_push()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_actor uuid := (new.payload ->> 'user_id')::uuid;
begin
    if not exists (select from app.push_types t where t.type = new.type)
       or not exists (select from app.push_tokens p where p.user_id = new.user_id)
       or exists (select from app.push_settings s where s.user_id = new.user_id and new.type = any (s.muted))
       or exists (select from app.blocks b
                  where (b.blocker = new.user_id and b.blocked = v_actor)
                     or (b.blocker = v_actor and b.blocked = new.user_id)) then
        return null;
    end if;
    delete from app.push_tokens p using app.auth_tokens a
    where p.user_id = new.user_id and a.id = p.auth_token_id and (a.revoked_at is not null or a.expires_at <= now());
    insert into app.push_outbox (token, event_id, type, data, send_after)
    select p.token, new.id, new.type, new.payload, app.push_send_after(new.user_id, now())
    from app.push_tokens p
    join app.auth_tokens a on a.id = p.auth_token_id
    where p.user_id = new.user_id and a.revoked_at is null and a.expires_at > now()
    order by p.token;
    return null;
end
$$;

-- Binds events_push to the types of app.push_types (0033, 2026-12-01): its WHEN clause lists
-- them, so an event of any other type (nearly all: balances, friends' updates, own devices)
-- passes the trigger by in the executor, without a function call or a query. Called by 0033
-- and, through app.push_types_rebind, at the end of every statement that changes
-- app.push_types (a migration adding a push type), in that statement's transaction; as the
-- table's owner, like every migration. The rebinding waits for the event writers in flight
-- (the trigger's lock on app.events) and holds new ones until its transaction ends.
-- Guarantees: events_push fires for exactly the recipients' events (user_id not null) whose
-- type is in app.push_types as this transaction sees it.
create or replace function app.bind_events_push()
returns void
language plpgsql
set search_path = public, pg_temp
as $$
begin
    execute format('create or replace trigger events_push after insert on app.events for each row '
                   'when (new.user_id is not null and new.type = any (%L::text[])) execute function app.events_push()',
                   (select coalesce(array_agg(t.type order by t.type), '{}') from app.push_types t));
end
$$;

-- After a statement that changed app.push_types: events_push's WHEN clause follows (above).
create or replace function app.push_types_rebind()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.bind_events_push();
    return null;
end
$$;

-- A revoked sign-in's push tokens are deleted (their queued pushes with them).
create or replace function app.push_tokens_revoked()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    delete from app.push_tokens p where p.auth_token_id = new.id;
    return null;
end
$$;
