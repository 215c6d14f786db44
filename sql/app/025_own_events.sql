-- Events to one's own other devices: what a person does on one device is told to their other
-- signed-in devices (their other auth tokens), not to the one that did it. Bound in
-- 0024_mail_sender_own_devices.sql; api.events_list leaves a token's own events out.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- The auth token whose request runs in this transaction (api.authenticate sets
-- focus.acting_token, transaction-local); null for a DBA, a job or a public route.
create or replace function app.acting_token()
returns uuid
language sql
stable
set search_path = public, pg_temp
as $$
    select nullif(current_setting('focus.acting_token', true), '')::uuid
$$;

-- One event for `user_id`'s own devices, marked with the acting token (whose streams skip it);
-- written only when the user has a live token other than the acting one, so a person signed in
-- on one device writes nothing. Payloads: ids only.
create or replace function app.tell_own_devices(user_id uuid, type text, payload jsonb default '{}')
returns void
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_acting uuid := app.acting_token();
begin
    if exists (select from app.auth_tokens t
               where t.user_id = tell_own_devices.user_id and t.revoked_at is null and t.expires_at > now()
                 and t.id is distinct from v_acting) then
        insert into app.events (user_id, type, payload, origin_token)
        values (tell_own_devices.user_id, tell_own_devices.type, tell_own_devices.payload, v_acting);
    end if;
end
$$;

-- Sessions: a live session started (inserted without an end); finished (an end set, or a
-- session recorded offline, inserted ended); abandoned (ended as abandoned).
create or replace function app.focus_sessions_own_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'INSERT' then
        perform app.tell_own_devices(new.user_id,
                                     case when new.ended_at is null then 'session.started' else 'session.finished' end,
                                     jsonb_build_object('session_id', new.id));
    elsif old.ended_at is null and new.ended_at is not null then
        perform app.tell_own_devices(new.user_id,
                                     case when new.abandoned then 'session.abandoned' else 'session.finished' end,
                                     jsonb_build_object('session_id', new.id));
    end if;
    return null;
end
$$;

-- Selections: the item now shown for a kind.
create or replace function app.user_selections_own_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'INSERT' or new.item_id is distinct from old.item_id then
        perform app.tell_own_devices(new.user_id, 'selection.changed',
                                     jsonb_build_object('kind', new.kind, 'item_id', new.item_id));
    end if;
    return null;
end
$$;

-- Items: one bought (or otherwise added to the inventory).
create or replace function app.user_items_own_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.tell_own_devices(new.user_id, 'item.acquired', jsonb_build_object('item_id', new.item_id));
    return null;
end
$$;

-- The account: what the Profile shows (name, bio, email) is
-- profile.changed; what only shapes the app (time zone, the tip on the timer, the locale) settings.changed.
-- The binding's condition leaves out deleted accounts and changes of anything else.
create or replace function app.users_own_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if new.display_name is distinct from old.display_name or new.bio is distinct from old.bio
       or new.email is distinct from old.email then
        perform app.tell_own_devices(new.id, 'profile.changed');
    end if;
    if new.time_zone is distinct from old.time_zone or new.show_tip_on_timer is distinct from old.show_tip_on_timer
       or new.locale is distinct from old.locale then
        perform app.tell_own_devices(new.id, 'settings.changed');
    end if;
    return null;
end
$$;

-- The avatar, set, replaced or removed: part of the Profile.
create or replace function app.avatars_own_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.tell_own_devices(case when tg_op = 'DELETE' then old.user_id else new.user_id end, 'profile.changed');
    return null;
end
$$;

-- Blocks: the blocker's other devices hear whom they blocked or unblocked (the id their block
-- list shows; the blocked person hears nothing).
create or replace function app.blocks_own_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'INSERT' then
        perform app.tell_own_devices(new.blocker, 'block.added', jsonb_build_object('user_id', new.blocked));
    else
        perform app.tell_own_devices(old.blocker, 'block.removed', jsonb_build_object('user_id', old.blocked));
    end if;
    return null;
end
$$;
