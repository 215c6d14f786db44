-- Focus rooms: the events members hear, a member's outcome when their live session ends, and
-- the room's conclusion (completed with a bonus, or failed). Bound in 0027_rooms_and_jobs.sql;
-- the endpoints are in sql/api/120_rooms.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- One event of `type` to every joined member of the room but `except_user`: one row each, none
-- when nobody else is in the room.
create or replace function app.room_tell(room_id uuid, type text, payload jsonb, except_user uuid)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if exists (select from app.room_members m
               where m.room_id = room_tell.room_id and m.state = 'joined' and m.user_id is distinct from room_tell.except_user) then
        insert into app.events (user_id, type, payload)
        select m.user_id, room_tell.type, room_tell.payload
        from app.room_members m
        where m.room_id = room_tell.room_id and m.state = 'joined' and m.user_id is distinct from room_tell.except_user
        order by m.user_id;
    end if;
end
$$;

-- Members: an invitation to the invitee (with the code, so they join by it); a join, a leave,
-- a finish or a give-up to the other joined members. The one who acted hears nothing: their
-- answer says it (a vanished member is not told either; their phone is gone).
create or replace function app.room_members_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_member jsonb := jsonb_build_object('room_id', new.room_id, 'user_id', new.user_id);
begin
    if tg_op = 'INSERT' and new.state = 'invited' then
        insert into app.events (user_id, type, payload)
        select new.user_id, 'room.invited', jsonb_build_object('room_id', r.id, 'code', r.code, 'user_id', r.host_id)
        from app.rooms r where r.id = new.room_id;
    elsif new.state = 'joined' and (tg_op = 'INSERT' or old.state <> 'joined') then
        perform app.room_tell(new.room_id, 'room.joined', v_member, new.user_id);
    elsif tg_op = 'UPDATE' and new.state = 'left' and old.state = 'joined' then
        perform app.room_tell(new.room_id, 'room.left', v_member, new.user_id);
    elsif tg_op = 'UPDATE' and new.outcome is not null and old.outcome is null then
        if new.outcome = 'completed' then
            perform app.room_tell(new.room_id, 'room.finished', v_member, new.user_id);
        else
            perform app.room_tell(new.room_id, 'room.gave_up', v_member || jsonb_build_object('outcome', new.outcome), new.user_id);
        end if;
    end if;
    return null;
end
$$;

-- Rooms: the start to every joined member but the host (who started it), each with their own
-- session's id; the end (completed, failed once every member has an outcome, cancelled) to
-- every joined member, each with the bonus they were paid.
create or replace function app.rooms_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if new.status = 'running' and old.status = 'open' then
        if exists (select from app.room_members m where m.room_id = new.id and m.state = 'joined' and m.user_id <> new.host_id) then
            insert into app.events (user_id, type, payload)
            select m.user_id, 'room.started',
                   jsonb_build_object('room_id', new.id, 'started_at', to_char(new.started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
                                      'session_id', m.session_id)
            from app.room_members m
            where m.room_id = new.id and m.state = 'joined' and m.user_id <> new.host_id
            order by m.user_id;
        end if;
    end if;
    if new.ended_at is not null and old.ended_at is null
       and exists (select from app.room_members m where m.room_id = new.id and m.state = 'joined') then
        insert into app.events (user_id, type, payload)
        select m.user_id, 'room.ended',
               jsonb_build_object('room_id', new.id, 'status', new.status,
                                  'bonus', coalesce((select c.amount from app.coin_ledger c
                                                     where c.room_id = new.id and c.user_id = m.user_id and c.entry = 'bonus'), 0))
        from app.room_members m
        where m.room_id = new.id and m.state = 'joined'
        order by m.user_id;
    end if;
    return null;
end
$$;

-- When a room member's live session ends, under the room's lock (so a finish racing a give-up,
-- or the last two finishes, are decided one after the other): the member's outcome by the
-- server's clock: abandoned, or finished before the plan's end, is gave_up; finished by the
-- plan's end plus the grace is completed; later (the scheduled settlement) is vanished. Then
-- the room concludes (app.room_conclude).
create or replace function app.focus_sessions_room_outcome()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_room_id uuid;
    v_plan_end timestamptz;
    v_grace interval;
begin
    select m.room_id into v_room_id from app.room_members m where m.session_id = new.id;
    if v_room_id is null then
        return null;
    end if;
    select r.started_at + make_interval(mins => r.planned_minutes) into v_plan_end from app.rooms r where r.id = v_room_id for update;
    select s.grace into v_grace from app.room_settings s;
    update app.room_members m
    set outcome = case when new.abandoned then 'gave_up'
                       when now() < v_plan_end then 'gave_up'
                       when now() <= v_plan_end + v_grace then 'completed'
                       else 'vanished' end,
        ended_at = now()
    where m.session_id = new.id and m.outcome is null;
    perform app.room_conclude(v_room_id);
    return null;
end
$$;

-- The room's state from its members' outcomes; the caller holds the room's row lock.
-- A running room with a member who gave up or vanished fails (no bonus for anyone); once every
-- joined member has an outcome, a room still running completed: each member is paid the bonus,
-- bonus_percent of the coins the plan earns (every completed member focused the whole plan),
-- one 'bonus' ledger row each (a unique index makes a second one impossible), and a failed
-- room records its end.
create or replace function app.room_conclude(room_id uuid)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_status text;
    v_planned integer;
    v_ended_at timestamptz;
    v_failed boolean;
    v_all_ended boolean;
    v_bonus integer;
begin
    -- Columns one by one, not a row of app.rooms: this file is loaded on upgrades from before
    -- 0027 too, where that type does not exist yet.
    select r.status, r.planned_minutes, r.ended_at into v_status, v_planned, v_ended_at
    from app.rooms r where r.id = room_conclude.room_id;
    if v_status not in ('running', 'failed') or v_ended_at is not null then
        return;
    end if;
    select coalesce(bool_or(m.outcome in ('gave_up', 'vanished')), false) or v_status = 'failed',
           coalesce(bool_and(m.outcome is not null), true)
    into v_failed, v_all_ended
    from app.room_members m where m.room_id = room_conclude.room_id and m.state = 'joined';
    if v_all_ended and not v_failed then
        select case when v_planned >= e.min_minutes_to_earn
                    then floor(floor(v_planned * e.coins_per_minute) * s.bonus_percent / 100)::integer else 0 end
        into v_bonus
        from app.economy_settings e cross join app.room_settings s;
        if v_bonus > 0 then
            insert into app.coin_ledger (user_id, entry, amount, reason, room_id)
            select m.user_id, 'bonus', v_bonus, 'focus room completed', room_conclude.room_id
            from app.room_members m where m.room_id = room_conclude.room_id and m.state = 'joined'
            order by m.user_id;
        end if;
        update app.rooms r set status = 'completed', ended_at = now() where r.id = room_conclude.room_id;
    elsif v_failed and (v_status <> 'failed' or v_all_ended) then
        update app.rooms r set status = 'failed', ended_at = case when v_all_ended then now() end where r.id = room_conclude.room_id;
    end if;
end
$$;
