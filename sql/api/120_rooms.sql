-- api focus rooms: friends of a host open, join and start one live session together.
-- Locks, always in this order: the room's row, then users' rows (api.lock_user, lower id first
-- when several). A member's session ending takes its user's lock, then the room's
-- (app.focus_sessions_room_outcome): only for a room already running, which nothing else
-- locks users under. A block (api.rooms_part) follows both: the waiting rooms of the two, then
-- their users' rows, then a running room's row. The events members hear are written by
-- triggers (sql/app/120_rooms.sql).

-- Room = {id, code, host_id, planned_minutes, status, max_members, bonus_coins, created_at,
-- started_at, ends_at, ended_at, session_id, members: [RoomMember]}
-- RoomMember = {user: UserCard, state, joined_at, outcome, bonus}
-- session_id: the viewer's own live session in the room (null before the start); ends_at: the
-- plan's end (null before the start); bonus_coins: what each member earns on top if everyone
-- finishes; a member's bonus: what they were paid (0 until the room completes). Each member's
-- card is as the viewer is shown it (api.user_card_for: a blocker as the block left them).
create function api.room_json(room_id uuid, viewer uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object(
            'id', r.id, 'code', r.code, 'host_id', r.host_id, 'planned_minutes', r.planned_minutes, 'status', r.status,
            'max_members', s.max_members,
            'bonus_coins', case when r.planned_minutes >= e.min_minutes_to_earn
                                then floor(floor(r.planned_minutes * e.coins_per_minute) * s.bonus_percent / 100)::integer else 0 end,
            'created_at', api.iso(r.created_at), 'started_at', api.iso(r.started_at),
            'ends_at', api.iso(r.started_at + make_interval(mins => r.planned_minutes)), 'ended_at', api.iso(r.ended_at),
            'session_id', (select m.session_id from app.room_members m where m.room_id = r.id and m.user_id = room_json.viewer),
            'members', (select coalesce(jsonb_agg(jsonb_build_object(
                                    'user', api.user_card_for(m.user_id, room_json.viewer), 'state', m.state, 'joined_at', api.iso(m.joined_at),
                                    'outcome', m.outcome,
                                    'bonus', coalesce((select c.amount from app.coin_ledger c
                                                       where c.room_id = r.id and c.user_id = m.user_id and c.entry = 'bonus'), 0))
                                order by m.joined_at nulls last, m.invited_at, m.user_id), '[]')
                        from app.room_members m where m.room_id = r.id))
        from app.rooms r cross join app.room_settings s cross join app.economy_settings e
        where r.id = room_json.room_id);
end
$$;

-- The room of the path's id, locked (FOR UPDATE) unless `for_update` is false, for someone who was
-- invited to, joined or left it; anyone else, and an unknown id, is 404 room_not_found.
create function api.member_room(params jsonb, user_id uuid, for_update boolean default true)
returns app.rooms
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_id uuid := api.uuid_field(member_room.params, 'id');
    v_room app.rooms;
begin
    if member_room.for_update then
        select r.* into v_room from app.rooms r
        where r.id = v_id and exists (select from app.room_members m where m.room_id = r.id and m.user_id = member_room.user_id)
        for update of r;
    else
        select r.* into v_room from app.rooms r
        where r.id = v_id and exists (select from app.room_members m where m.room_id = r.id and m.user_id = member_room.user_id);
    end if;
    if v_room.id is null then
        perform api.fail(404, 'room_not_found', 'There is no such room of yours.');
    end if;
    return v_room;
end
$$;

-- 409 room_in_progress (with its id) when the user is a joined member of another room that is
-- waiting to start, or running with the user's session not ended yet: one room at a time.
create function api.check_no_other_room(user_id uuid, room_id uuid)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_other uuid;
begin
    select r.id into v_other
    from app.room_members m join app.rooms r on r.id = m.room_id
    where m.user_id = check_no_other_room.user_id and m.state = 'joined' and m.outcome is null
      and r.status in ('open', 'running', 'failed') and r.ended_at is null
      and r.id is distinct from check_no_other_room.room_id
    limit 1;
    if v_other is not null then
        perform api.fail(409, 'room_in_progress', 'You are already in another room; leave it or finish first.',
                         jsonb_build_object('id', v_other));
    end if;
end
$$;

-- A join code: 8 characters from 30 that cannot be misread (no 0/O, 1/I/L, U), from the
-- cryptographic generator (two bytes a character, so the modulo bias is negligible): 30^8, about 39 bits.
create function api.new_room_code()
returns text
language sql volatile security definer set search_path = public, pg_temp
as $$
    select string_agg(substr('23456789ABCDEFGHJKMNPQRSTVWXYZ', ((get_byte(b.bytes, 2 * i) * 256 + get_byte(b.bytes, 2 * i + 1)) % 30) + 1, 1),
                      '' order by i)
    from (select gen_random_bytes(16) as bytes) b, generate_series(0, 7) as i
$$;

-- POST /rooms {planned_minutes, invite?: [user id, …]}: 201 {room}. The caller hosts (a joined
-- member) and each invitee (at most 49; invitations hold no place, only joins count toward
-- max_members), who must be the host's friend and not suspended (else 404 user_not_found,
-- nothing written: a friend while suspended answers as an ex-friend, docs/moderation.md), is
-- sent room.invited with the code. The code is unique among the rooms waiting.
create function api.rooms_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(rooms_create.token);
    v_body jsonb := api.only_keys(rooms_create.body, array['planned_minutes', 'invite']);
    v_max_session integer := (select e.max_session_minutes from app.economy_settings e);
    v_planned integer := api.integer_field(v_body, 'planned_minutes', 1, v_max_session);
    v_invite jsonb := coalesce(api.json_field(v_body, 'invite', 'array', false, 'an array of user ids'), '[]');
    v_invitees uuid[];
    v_room_id uuid := gen_random_uuid();
    v_tries integer := 0;
begin
    perform api.refuse_guest(v_user_id, 'A room');
    if jsonb_array_length(v_invite) > 49 then
        perform api.fail_field('invite', 'must hold at most 49 user ids.');
    end if;
    if exists (select from jsonb_array_elements(v_invite) e(v) where jsonb_typeof(e.v) <> 'string' or not api.is_uuid(e.v #>> '{}')) then
        perform api.fail_field('invite', 'must hold only user ids.');
    end if;
    select coalesce(array_agg(distinct (e.v #>> '{}')::uuid), '{}') into v_invitees from jsonb_array_elements(v_invite) e(v);
    perform api.lock_user(v_user_id);
    if exists (select from unnest(v_invitees) i(id)
               where not exists (select from app.friendships f join app.users u on u.id = i.id and u.deleted_at is null
                                 where f.user_low = least(v_user_id, i.id) and f.user_high = greatest(v_user_id, i.id)
                                   and f.status = 'accepted')
                  or exists (select from app.suspensions s where s.user_id = i.id and s.until > now())) then
        perform api.fail(404, 'user_not_found', 'Invite friends only: one of these is not your friend.');
    end if;
    perform api.check_no_other_room(v_user_id, null);
    loop
        begin
            insert into app.rooms (id, code, host_id, planned_minutes) values (v_room_id, api.new_room_code(), v_user_id, v_planned);
            exit;
        exception when unique_violation then  -- a code in use: another draw
            v_tries := v_tries + 1;
            if v_tries >= 5 then
                raise;
            end if;
        end;
    end loop;
    insert into app.room_members (room_id, user_id, state, joined_at) values (v_room_id, v_user_id, 'joined', now());
    insert into app.room_members (room_id, user_id, state, invited_at)
    select v_room_id, i.id, 'invited', now() from unnest(v_invitees) i(id) order by i.id;
    return api.ok(jsonb_build_object('room', api.room_json(v_room_id, v_user_id)));
end
$$;
grant execute on function api.rooms_create(text, jsonb, jsonb) to focus_api;
comment on function api.rooms_create(text, jsonb, jsonb) is
    'POST /rooms: opens a room with a plan and a join code, the caller its host; invitees (friends only, not suspended, '
    'else 404 user_not_found) hear room.invited; 409 room_in_progress while the caller is in another room.';
insert into api.endpoints (method, path, function, status, body, errors)
values ('POST', '/rooms', 'api.rooms_create', 201, 'json',
        '{account_suspended, guest_not_allowed, invalid_field, room_in_progress, user_not_found}');

-- POST /rooms/{code}/join: 200 {room}. One answer, 404 room_not_found with one detail, for
-- every code the caller may not use: an unknown code, a room whose host is not the caller's
-- friend (or is suspended), a room with someone the caller blocked or who blocked the caller
-- among the joined members; so the answer never confirms that a code exists. Each such answer
-- is recorded (app.room_join_failures, answered without rolling back so the row stays); past
-- room_settings.max_join_failures of them in join_failure_window, every join by code is 429
-- too_many_join_attempts with Retry-After (the seconds until the oldest leaves the window), so
-- codes cannot be guessed at speed. Joins of one account run one at a time (an advisory lock,
-- taken before the room's), so the count holds under racing requests. A joined member gets
-- the room again. Then, for the host's friends only: the room waits (409 room_not_open); at
-- most max_members joined (409 room_full, decided under the room's lock, so two joins racing
-- for the last place get one each); one room at a time (409 room_in_progress).
create function api.rooms_join(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(rooms_join.token);
    v_code text := upper(btrim(api.text_field(rooms_join.params, 'code', max_length => 20)));
    v_settings app.room_settings;
    v_failures integer;
    v_oldest timestamptz;
    v_room app.rooms;
    v_state text;
begin
    perform api.refuse_guest(v_user_id, 'A room');
    if v_code = '' then
        perform api.fail_field('code', 'must not be empty.');
    end if;
    select * into v_settings from app.room_settings;
    perform pg_advisory_xact_lock(hashtext('room-joins:' || v_user_id));
    select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
    from app.room_join_failures f
    where f.user_id = v_user_id and f.failed_at > now() - v_settings.join_failure_window;
    if v_failures >= v_settings.max_join_failures then
        return api.problem(429, 'too_many_join_attempts', 'Too many room codes that found no room; wait before trying again.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.join_failure_window - now()))::integer));
    end if;
    select r.* into v_room from app.rooms r
    where r.code = v_code
    order by (r.status = 'open') desc, exists (select from app.room_members m where m.room_id = r.id and m.user_id = v_user_id) desc,
             r.created_at desc
    limit 1
    for update of r;
    select m.state into v_state from app.room_members m where m.room_id = v_room.id and m.user_id = v_user_id;
    if v_room.id is null
       or (v_state is distinct from 'joined'
           and (not exists (select from app.friendships f
                            where f.user_low = least(v_user_id, v_room.host_id) and f.user_high = greatest(v_user_id, v_room.host_id)
                              and f.status = 'accepted')
                or exists (select from app.suspensions s where s.user_id = v_room.host_id and s.until > now())))
       or exists (select from app.room_members m join app.blocks b
                    on (b.blocker = v_user_id and b.blocked = m.user_id) or (b.blocker = m.user_id and b.blocked = v_user_id)
                  where m.room_id = v_room.id and m.state = 'joined') then
        insert into app.room_join_failures (user_id) values (v_user_id);
        return api.problem(404, 'room_not_found', 'No room waits with this code.');
    end if;
    if v_state = 'joined' then
        return api.ok(jsonb_build_object('room', api.room_json(v_room.id, v_user_id)));
    end if;
    if v_room.status <> 'open' then
        perform api.fail(409, 'room_not_open', 'This room has already started or ended.');
    end if;
    if (select count(*) from app.room_members m where m.room_id = v_room.id and m.state = 'joined')
       >= v_settings.max_members then
        perform api.fail(409, 'room_full', 'This room is full.');
    end if;
    perform api.lock_user(v_user_id);
    perform api.check_no_other_room(v_user_id, v_room.id);
    insert into app.room_members as m (room_id, user_id, state, joined_at) values (v_room.id, v_user_id, 'joined', now())
    on conflict (room_id, user_id) do update set state = 'joined', joined_at = now(), left_at = null;
    return api.ok(jsonb_build_object('room', api.room_json(v_room.id, v_user_id)));
end
$$;
grant execute on function api.rooms_join(text, jsonb, jsonb) to focus_api;
comment on function api.rooms_join(text, jsonb, jsonb) is
    'POST /rooms/{code}/join: joins a waiting room by its code (409 room_full, room_not_open, room_in_progress); one 404 '
    'room_not_found for an unknown code and for a room the caller may not join (not the host''s friend, a block among the '
    'members); 429 too_many_join_attempts past max_join_failures such 404s in join_failure_window; again: the same.';
insert into api.endpoints (method, path, function, errors, parameters)
values ('POST', '/rooms/{code}/join', 'api.rooms_join',
        '{account_suspended, guest_not_allowed, invalid_field, room_full, room_in_progress, room_not_found, room_not_open, too_many_join_attempts}',
        '{"code": {"schema": {"type": "string", "minLength": 1, "maxLength": 20, "pattern": "[^ ]"}, "description": "The room''s join code, in any letter case (spaces around it are ignored; blank is 400)."}}');

-- POST /rooms/{id}/leave: 200 {room}, before the start only (after it, a member gives up by
-- abandoning their session: 409 room_not_open). The host leaving cancels the room for all.
-- Leaving again answers the same; an invitee who never joined has nothing to leave (the same).
create function api.rooms_leave(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(rooms_leave.token);
    v_room app.rooms := api.member_room(rooms_leave.params, v_user_id);
    v_state text;
begin
    select m.state into v_state from app.room_members m where m.room_id = v_room.id and m.user_id = v_user_id;
    if v_state <> 'joined' then
        return api.ok(jsonb_build_object('room', api.room_json(v_room.id, v_user_id)));
    end if;
    if v_room.status <> 'open' then
        perform api.fail(409, 'room_not_open', 'The room has started: abandon your session to give up.');
    end if;
    update app.room_members m set state = 'left', left_at = now() where m.room_id = v_room.id and m.user_id = v_user_id;
    if v_user_id = v_room.host_id then
        update app.rooms r set status = 'cancelled', ended_at = now() where r.id = v_room.id;
    end if;
    return api.ok(jsonb_build_object('room', api.room_json(v_room.id, v_user_id)));
end
$$;
grant execute on function api.rooms_leave(text, jsonb, jsonb) to focus_api;
comment on function api.rooms_leave(text, jsonb, jsonb) is
    'POST /rooms/{id}/leave: leaves a waiting room (the host: cancels it); again: the same; 409 room_not_open once started; '
    '404 room_not_found.';
insert into api.endpoints (method, path, function, errors)
values ('POST', '/rooms/{id}/leave', 'api.rooms_leave',
        '{account_suspended, invalid_field, room_not_found, room_not_open}');

-- A block parts the two (2026-12-06, docs/rooms.md "Blocks"): in every room that has not ended
-- where both are joined, the one who is not the host leaves, or the blocked one when neither
-- hosts; a member whose own session in the room has ended already (an outcome) keeps their
-- record. Leaving is a leave as POST /rooms/{id}/leave writes it (state left, room.left to the
-- other joined members), and the one who leaves hears room.left too (they did not ask for it);
-- in a running room their session goes on as a session of their own, no longer the room's, and
-- the room concludes from the members left (app.room_conclude). Lock order: the caller took the
-- waiting rooms of both first (api.lock_waiting_rooms), then both users' rows; a running room's
-- row is taken here, after the users', as a session's end takes it.
create function api.rooms_part(blocker uuid, blocked uuid)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_room app.rooms;
    v_gone uuid;
begin
    for v_room in
        select r.* from app.rooms r
        where r.status in ('open', 'running', 'failed') and r.ended_at is null
          and exists (select from app.room_members m where m.room_id = r.id and m.user_id = rooms_part.blocker and m.state = 'joined')
          and exists (select from app.room_members m where m.room_id = r.id and m.user_id = rooms_part.blocked and m.state = 'joined')
        order by r.id
        for update of r
    loop
        v_gone := case when v_room.host_id = rooms_part.blocked then rooms_part.blocker else rooms_part.blocked end;
        update app.room_members m set state = 'left', left_at = now(), session_id = null
        where m.room_id = v_room.id and m.user_id = v_gone and m.state = 'joined' and m.outcome is null;
        if found then
            insert into app.events (user_id, type, payload)
            values (v_gone, 'room.left', jsonb_build_object('room_id', v_room.id, 'user_id', v_gone));
            perform app.room_conclude(v_room.id);
        end if;
    end loop;
end
$$;

-- The waiting rooms where either user is a joined member, locked in id order: taken before the
-- users' rows by whatever parts two users (api.users_block_create), the order the room routes
-- take them in.
create function api.lock_waiting_rooms(a uuid, b uuid)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    perform from app.rooms r
    where r.status = 'open'
      and exists (select from app.room_members m
                  where m.room_id = r.id and m.user_id in (lock_waiting_rooms.a, lock_waiting_rooms.b) and m.state = 'joined')
    order by r.id
    for update of r;
end
$$;

-- POST /rooms/{id}/start: 200 {room}. The host only (403 not_room_host); a waiting room only
-- (409 room_not_open: a second start, a cancelled room); two joined members at least (409
-- room_too_small). Every joined member's live session starts at one server time (the
-- transaction's now()), as POST /focus-sessions/start would start it with the room's plan;
-- a member whose own session runs or covers that time stops the start for all (409
-- room_member_busy with their user_ids). A leave racing the start waits on the room's lock:
-- it leaves before (and gets no session) or answers 409 room_not_open after.
create function api.rooms_start(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(rooms_start.token);
    v_room app.rooms := api.member_room(rooms_start.params, v_user_id);
    v_max_session integer := (select e.max_session_minutes from app.economy_settings e);
    v_busy uuid[];
    v_member uuid;
begin
    if v_room.host_id <> v_user_id then
        perform api.fail(403, 'not_room_host', 'Only the host starts the room.');
    end if;
    if v_room.status <> 'open' then
        perform api.fail(409, 'room_not_open', 'This room has already started or ended.');
    end if;
    if (select count(*) from app.room_members m join app.users u on u.id = m.user_id and u.deleted_at is null
        where m.room_id = v_room.id and m.state = 'joined') < 2 then
        perform api.fail(409, 'room_too_small', 'A room starts with two members at least.');
    end if;
    for v_member in select m.user_id from app.room_members m where m.room_id = v_room.id and m.state = 'joined' order by m.user_id loop
        perform from app.users u where u.id = v_member for update;
    end loop;
    -- A member whose account was deleted while waiting left with it.
    update app.room_members m set state = 'left', left_at = now()
    from app.users u where u.id = m.user_id and u.deleted_at is not null and m.room_id = v_room.id and m.state = 'joined';
    select array_agg(m.user_id order by m.user_id) into v_busy
    from app.room_members m
    where m.room_id = v_room.id and m.state = 'joined'
      and exists (select from app.focus_sessions s
                  where s.user_id = m.user_id
                    and (s.ended_at is null or s.occupies && tstzrange(now(), now() + make_interval(mins => v_max_session))));
    if v_busy is not null then
        perform api.fail(409, 'room_member_busy', 'A member''s own session runs; the room starts when it ends.',
                         jsonb_build_object('user_ids', to_jsonb(v_busy)));
    end if;
    insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, occupies)
    select gen_random_uuid(), m.user_id, 'live', v_room.planned_minutes, now(),
           tstzrange(now(), now() + make_interval(mins => v_max_session))
    from app.room_members m where m.room_id = v_room.id and m.state = 'joined' order by m.user_id;
    update app.room_members m set session_id = s.id
    from app.focus_sessions s
    where m.room_id = v_room.id and m.state = 'joined' and s.user_id = m.user_id and s.ended_at is null;
    update app.rooms r set status = 'running', started_at = now() where r.id = v_room.id;
    return api.ok(jsonb_build_object('room', api.room_json(v_room.id, v_user_id)));
end
$$;
grant execute on function api.rooms_start(text, jsonb, jsonb) to focus_api;
comment on function api.rooms_start(text, jsonb, jsonb) is
    'POST /rooms/{id}/start: the host starts every joined member''s live session at one server time; 403 not_room_host; '
    '409 room_not_open (a second start), room_too_small, room_member_busy; 404 room_not_found.';
insert into api.endpoints (method, path, function, errors)
values ('POST', '/rooms/{id}/start', 'api.rooms_start',
        '{account_suspended, invalid_field, not_room_host, room_member_busy, room_not_found, room_not_open, room_too_small}');

-- GET /rooms/{id}: {room}, for whoever was invited to, joined or left it; kept after it ends.
create function api.rooms_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(rooms_get.token);
    v_room app.rooms := api.member_room(rooms_get.params, v_user_id, for_update => false);
begin
    return api.ok(jsonb_build_object('room', api.room_json(v_room.id, v_user_id)));
end
$$;
grant execute on function api.rooms_get(text, jsonb, jsonb) to focus_api;
comment on function api.rooms_get(text, jsonb, jsonb) is
    'GET /rooms/{id}: the room, its members and their outcomes, for its members and invitees; else 404 room_not_found.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/rooms/{id}', 'api.rooms_get', '{account_suspended, invalid_field, room_not_found}');

-- GET /rooms: {rooms: [Room]}, the caller's rooms (invited, joined or left), newest first, at
-- most 100: the history of every room they were in, kept after it ends.
create function api.rooms_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(rooms_list.token);
begin
    return api.ok(jsonb_build_object('rooms', coalesce((
        select jsonb_agg(api.room_json(x.id, v_user_id) order by x.created_at desc, x.id)
        from (select r.id, r.created_at from app.rooms r join app.room_members m on m.room_id = r.id and m.user_id = v_user_id
              order by r.created_at desc, r.id limit 100) x), '[]')));
end
$$;
grant execute on function api.rooms_list(text, jsonb, jsonb) to focus_api;
comment on function api.rooms_list(text, jsonb, jsonb) is
    'GET /rooms: the caller''s rooms, newest first (at most 100), with members and outcomes.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/rooms', 'api.rooms_list', '{account_suspended}');

-- Settlement (the scheduled job settle_rooms, sql/api/140_jobs.sql): a joined member of a running or
-- failed room whose session has not ended by the plan's end plus room_settings.grace vanished:
-- their session is finished as a late POST /focus-sessions/{id}/finish would finish it
-- (minutes up to the plan, the ordinary coins), under their user's lock, and the outcome
-- trigger records them as vanished, which fails the room. Rooms nobody started within
-- room_settings.open_for are cancelled, and the join throttle's records past
-- join_failure_window are deleted. Returns how many members and rooms it settled. Tests call it
-- directly at a moved clock.
create function api.rooms_settle()
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_session app.focus_sessions;
    v_count integer := 0;
    v_cancelled integer;
begin
    for v_session in
        select s.* from app.rooms r
        join app.room_members m on m.room_id = r.id and m.state = 'joined' and m.outcome is null
        join app.focus_sessions s on s.id = m.session_id
        cross join app.room_settings rs
        where r.status in ('running', 'failed') and r.ended_at is null
          and r.started_at + make_interval(mins => r.planned_minutes) + rs.grace < now()
        order by s.user_id
    loop
        perform from app.users u where u.id = v_session.user_id for update;
        select * into v_session from app.focus_sessions s where s.id = v_session.id;
        if v_session.ended_at is null then
            update app.focus_sessions s
            set ended_at = api.live_end(v_session), occupies = tstzrange(s.started_at, api.live_end(v_session)),
                minutes = floor(extract(epoch from api.live_end(v_session) - s.started_at) / 60)::integer
            where s.id = v_session.id;
            perform api.pay_session(v_session.id);
            v_count := v_count + 1;
        end if;
    end loop;
    with gone as (
        update app.rooms r set status = 'cancelled', ended_at = now()
        from app.room_settings rs
        where r.status = 'open' and r.created_at + rs.open_for < now()
        returning r.id
    )
    select count(*)::integer into v_cancelled from gone;
    delete from app.room_join_failures f using app.room_settings rs where f.failed_at <= now() - rs.join_failure_window;
    return v_count + v_cancelled;
end
$$;
