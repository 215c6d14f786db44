-- api friends: requests by email as a state machine (ask, accept, decline, cancel, remove),
-- the lists, a friend's island. Every transition locks both users' rows in id order, so two
-- racing transitions on one pair run one after the other and the second sees the first.

-- UserCard = {id, display_name, has_avatar, avatar_version}. avatar_version (null without an
-- avatar) is the avatar's last change in microseconds since 1970: a new image gives a new
-- version, so the friends list and its ETag change with it and a phone knows to refetch it.
-- A UserCard from its parts; plain SQL with no table, so the planner inlines it into the
-- set-based queries (friends list, leaderboards) that build many cards at once.
create function api.card_json(id uuid, display_name text, has_avatar boolean, avatar_updated_at timestamptz)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('id', card_json.id, 'display_name', card_json.display_name,
                              'has_avatar', card_json.has_avatar, 'avatar_version', api.avatar_version(card_json.avatar_updated_at))
$$;

create function api.user_card(user_id uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.card_json(u.id, u.display_name, a.user_id is not null, a.updated_at)
        from app.users u left join app.avatars a on a.user_id = u.id
        where u.id = user_card.user_id);
end
$$;

-- The UserCard of `user_id` as `viewer` is shown it: when `user_id` blocked `viewer`, the card
-- the block left (the blocker's name and avatar version at the block, kept on app.blocks), so a
-- rename or a new avatar after a block never reaches the blocked user; otherwise
-- api.user_card. Every answer that shows another user to a caller (gifts, rooms, friend
-- requests, the export) builds its cards with it (docs/moderation.md, "Blocks do not show").
create function api.user_card_for(user_id uuid, viewer uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_block app.blocks;
begin
    select b.* into v_block from app.blocks b where b.blocker = user_card_for.user_id and b.blocked = user_card_for.viewer;
    if v_block.blocker is null then
        return api.user_card(user_card_for.user_id);
    end if;
    return api.card_json(v_block.blocker, v_block.blocker_display_name, v_block.blocker_avatar_updated_at is not null,
                         v_block.blocker_avatar_updated_at);
end
$$;

-- Minutes a user focused in sessions that ended today, in that user's own day: their row of the
-- rollup (app.daily_minutes, migration 0012) for their local date.
create function api.today_minutes(user_id uuid)
returns integer
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select coalesce((select d.minutes from app.users u
                         join app.daily_minutes d on d.user_id = u.id and d.day = api.local_date(u.time_zone, now())
                         where u.id = today_minutes.user_id), 0));
end
$$;

-- Friend = UserCard + {selected, befriended_at, today_minutes}
create function api.friend_json(user_id uuid, befriended_at timestamptz)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.user_card(friend_json.user_id)
               || jsonb_build_object('selected', api.selected_json(friend_json.user_id),
                                     'befriended_at', api.iso(friend_json.befriended_at),
                                     'today_minutes', api.today_minutes(friend_json.user_id)));
end
$$;

-- The user of a pair who is not `me`.
create function api.other_user(pair app.friendships, me uuid)
returns uuid
language sql immutable
as $$ select case when pair.user_low = other_user.me then pair.user_high else pair.user_low end $$;

-- The pair row between two users (all nulls when there is none), whichever order they come in.
create function api.pair(a uuid, b uuid)
returns app.friendships
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select f from app.friendships f
            where f.user_low = least(pair.a, pair.b) and f.user_high = greatest(pair.a, pair.b));
end
$$;

-- The accepted pair row between the caller and a friend they may look at; a stranger, a
-- pending or blocked pair, or a friend while suspended is 404 user_not_found, exactly like an
-- unknown id (GET /users/{id} and what hangs below it).
create function api.visible_friend(me uuid, other uuid)
returns app.friendships
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_pair app.friendships := api.pair(visible_friend.me, visible_friend.other);
begin
    if v_pair.status is distinct from 'accepted'
       or exists (select from app.suspensions s where s.user_id = visible_friend.other and s.until > now()) then
        perform api.fail(404, 'user_not_found', 'There is no such friend.');
    end if;
    return v_pair;
end
$$;

-- The pair row between two users, read after locking both users' rows (lower id first). Every
-- transition takes these locks before it reads the pair, so the row cannot change under it.
create function api.lock_pair(a uuid, b uuid)
returns app.friendships
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    perform api.lock_user(least(lock_pair.a, lock_pair.b));
    perform api.lock_user(greatest(lock_pair.a, lock_pair.b));
    return api.pair(lock_pair.a, lock_pair.b);
end
$$;

create function api.record_friendship_event(pair app.friendships, actor uuid, action text)
returns void
language sql volatile security definer set search_path = public, pg_temp
as $$
    insert into app.friendship_events (request_id, user_low, user_high, actor, action)
    values (pair.id, pair.user_low, pair.user_high, record_friendship_event.actor, record_friendship_event.action)
$$;

-- A pending request its receiver never sees: the receiver blocked the sender. Its sender sees
-- it as any other (outgoing, 201 then 200 when asked again, cancel), so a blocked user cannot
-- tell they are blocked; no event tells the receiver of it, and unblocking ends it as declined.
create function api.request_hidden(pair app.friendships)
returns boolean
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select pair.status = 'pending'
               and exists (select from app.blocks b
                           where b.blocker = api.other_user(pair, pair.requested_by) and b.blocked = pair.requested_by));
end
$$;

-- A request the caller may act on: pending, and the caller on the given side
-- ('receiver' or 'sender'). Anyone else, or a request no longer pending, gets 404.
create function api.pending_request(request_id uuid, user_id uuid, side text)
returns app.friendships
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_row app.friendships;
begin
    select * into v_row from app.friendships f where f.id = pending_request.request_id;
    if v_row.id is not null and pending_request.user_id in (v_row.user_low, v_row.user_high) then
        v_row := api.lock_pair(v_row.user_low, v_row.user_high);  -- re-read under the pair's lock
    end if;
    if v_row.id is distinct from pending_request.request_id or v_row.status <> 'pending'
       or (pending_request.side = 'receiver') <> (v_row.requested_by <> pending_request.user_id)
       or pending_request.user_id not in (v_row.user_low, v_row.user_high)
       or (pending_request.side = 'receiver' and api.request_hidden(v_row)) then
        perform api.fail(404, 'friend_request_not_found', 'There is no such pending request for you.');
    end if;
    return v_row;
end
$$;

-- Accepts a locked pending pair as `actor` (by_asking: by asking back, POST /friend-requests);
-- returns the Friend the actor now has.
create function api.accept_pair(pair app.friendships, actor uuid, by_asking boolean default false)
returns jsonb
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_now timestamptz := now();
begin
    update app.friendships f set status = 'accepted', accepted_at = v_now, accepted_by_asking = accept_pair.by_asking
    where f.id = pair.id;
    perform api.record_friendship_event(pair, accept_pair.actor, 'accepted');
    return api.friend_json(api.other_user(pair, accept_pair.actor), v_now);
end
$$;

-- POST /friend-requests {email}
-- A guest is 403 guest_not_allowed, an account under the age gate 403 parental_consent_required,
-- before anything is counted; an account under the age gate is found by nobody, as an unknown
-- email (2026-12-07, docs/guests.md).
-- Every attempt a sender makes counts, unknown emails included (the 404 is answered without
-- rolling back, so its count stays): past app.social_settings.max_friend_requests in
-- friend_request_window the sender gets 429 too_many_friend_requests, so nobody can test
-- thousands of emails for accounts. An account that blocked the sender answers exactly as one
-- that did not (201, then 200 when asked again): the request is stored but hidden from the
-- receiver (api.request_hidden), so the answer does not tell the sender they are blocked. An
-- account whose email is not verified answers as an unknown email. One the sender blocked is
-- 409 user_blocked.
-- Someone who had asked you: asking back accepts (200 {friend, auto_accepted: true}); asking
-- again after that repeats it, the same answer with the achievements it unlocked; a friend
-- otherwise (you asked, or you accepted with POST /friend-requests/{id}/accept) is 409
-- already_friends.
-- Every answer names its shape in `kind` (the document's discriminator, 2026-12-07):
-- 'friend_added' beside `friend`, 'friend_request' beside `request`.
create function api.friend_requests_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(friend_requests_create.token);
    v_body jsonb := api.only_keys(friend_requests_create.body, array['email']);
    v_email text := api.email_field(v_body);
    v_settings app.social_settings;
    v_attempts integer;
    v_oldest timestamptz;
    v_other uuid;
    v_pair app.friendships;
begin
    perform api.refuse_guest(v_user_id, 'A friend request');
    perform api.refuse_age_restricted(v_user_id, 'A friend request');
    select * into v_settings from app.social_settings;
    perform pg_advisory_xact_lock(hashtext('friend-requests:' || v_user_id));
    select count(*)::integer, min(a.attempted_at) into v_attempts, v_oldest
    from app.friend_request_attempts a
    where a.user_id = v_user_id and a.attempted_at > now() - v_settings.friend_request_window;
    if v_attempts >= v_settings.max_friend_requests then
        return api.problem(429, 'too_many_friend_requests', 'You sent too many friend requests; wait before sending more.',
                           retry_after => greatest(1, ceil(extract(epoch from
                               v_oldest + v_settings.friend_request_window - now()))::integer));
    end if;
    insert into app.friend_request_attempts (user_id) values (v_user_id);

    -- An unverified email finds nobody: the same 404 as an unknown one, so a squatter on an
    -- address receives no request meant for its real owner, and the answer tells nothing.
    -- An account under the age gate is found by nobody either (docs/guests.md, 2026-12-07).
    select u.id into v_other from app.users u
    where u.email = v_email::citext and u.email_verified_at is not null
      and not app.age_restricted(u.birth_month, u.parental_consent_at);
    if v_other is null then
        return api.problem(404, 'user_not_found', 'Nobody has an account with that email.');
    end if;
    if exists (select from app.blocks b where b.blocker = v_user_id and b.blocked = v_other) then
        perform api.fail(409, 'user_blocked', 'You blocked that user; unblock them first.');
    end if;
    if v_other = v_user_id then
        perform api.fail(422, 'cannot_friend_self', 'You cannot send a friend request to yourself.');
    end if;
    v_pair := api.lock_pair(v_user_id, v_other);
    if v_pair.status = 'accepted' and v_pair.accepted_by_asking and v_pair.requested_by = v_other then
        -- Asking again someone you accepted by asking back (a retry of that): the answer asking
        -- back gave, what it unlocked included (2026-12-06).
        return api.with_achievements(api.ok(jsonb_build_object('kind', 'friend_added',
                                                               'friend', api.friend_json(v_other, v_pair.accepted_at),
                                                               'auto_accepted', true),
                                            status => 200), v_user_id, 'friendship:' || v_pair.id);
    elsif v_pair.status = 'accepted' then
        perform api.fail(409, 'already_friends', 'You are already friends.');
    elsif v_pair.status = 'pending' and v_pair.requested_by = v_user_id then
        -- Asking again (a retry) answers the pending request, 200 instead of 201.
        return api.ok(jsonb_build_object('kind', 'friend_request', 'request', jsonb_build_object(
            'id', v_pair.id, 'to', api.user_card_for(v_other, v_user_id), 'created_at', api.iso(v_pair.created_at))), status => 200);
    elsif v_pair.status = 'pending' then
        -- They had already asked you: asking back accepts.
        return api.with_achievements(api.ok(jsonb_build_object('kind', 'friend_added',
                                                               'friend', api.accept_pair(v_pair, v_user_id, by_asking => true),
                                                               'auto_accepted', true),
                                            status => 200), v_user_id, 'friendship:' || v_pair.id);
    end if;
    if (select count(*) from app.friendships f where f.requested_by = v_user_id and f.status = 'pending') >= 50 then
        perform api.fail(429, 'too_many_pending', 'You have 50 pending requests; wait for answers first.');
    end if;
    insert into app.friendships (user_low, user_high, requested_by, status)
    values (least(v_user_id, v_other), greatest(v_user_id, v_other), v_user_id, 'pending')
    returning * into v_pair;
    if not api.request_hidden(v_pair) then
        perform api.record_friendship_event(v_pair, v_user_id, 'asked');
    end if;
    return api.ok(jsonb_build_object('kind', 'friend_request', 'request', jsonb_build_object(
        'id', v_pair.id, 'to', api.user_card_for(v_other, v_user_id), 'created_at', api.iso(v_pair.created_at))));
end
$$;
grant execute on function api.friend_requests_create(text, jsonb, jsonb) to focus_api;
comment on function api.friend_requests_create(text, jsonb, jsonb) is
    'POST /friend-requests: 404 user_not_found, 409 user_blocked (you blocked them; their block on you answers as none), 429 too_many_friend_requests, 422 cannot_friend_self, 409 already_friends, '
    '429 too_many_pending (50); asking again answers the pending request (200); if they had asked you, accepts (200 auto_accepted), '
    'and asking again once accepted so answers the same.';
insert into api.endpoints (method, path, function, status, body, localized, errors)
values ('POST', '/friend-requests', 'api.friend_requests_create', 201, 'json', true,
        '{account_suspended, already_friends, cannot_friend_self, guest_not_allowed, invalid_email, invalid_field, parental_consent_required, too_many_friend_requests, too_many_pending, user_blocked, user_not_found}');

-- POST /friend-requests/{id}/accept: only the receiver, only while pending. Answers
-- {kind: 'friend_added', friend}, the shape asking back answers.
create function api.friend_requests_accept(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(friend_requests_accept.token);
    v_id uuid := api.uuid_field(friend_requests_accept.params, 'id');
    v_pair app.friendships;
begin
    -- Accepting again (a retry): the request you received was accepted and is still this
    -- friendship (a friendship keeps its request's id), so answer the friend as before, what the
    -- acceptance unlocked included.
    select * into v_pair from app.friendships f where f.id = v_id and v_user_id in (f.user_low, f.user_high);
    if v_pair.id is not null then
        v_pair := api.lock_pair(v_pair.user_low, v_pair.user_high);  -- re-read under the pair's lock
    end if;
    if v_pair.id = v_id and v_pair.status = 'accepted' and v_pair.requested_by <> v_user_id then
        return api.with_achievements(api.ok(jsonb_build_object('kind', 'friend_added',
                                                                   'friend', api.friend_json(api.other_user(v_pair, v_user_id), v_pair.accepted_at))),
                                     v_user_id, 'friendship:' || v_id);
    end if;
    v_pair := api.pending_request(v_id, v_user_id, 'receiver');
    return api.with_achievements(api.ok(jsonb_build_object('kind', 'friend_added', 'friend', api.accept_pair(v_pair, v_user_id))), v_user_id,
                                 'friendship:' || v_pair.id);
end
$$;
grant execute on function api.friend_requests_accept(text, jsonb, jsonb) to focus_api;
comment on function api.friend_requests_accept(text, jsonb, jsonb) is
    'POST /friend-requests/{id}/accept: only the receiver of a pending request; again once accepted: the friend (200), '
    'achievements_unlocked included; else 404.';
insert into api.endpoints (method, path, function, localized, errors)
values ('POST', '/friend-requests/{id}/accept', 'api.friend_requests_accept', true,
        '{account_suspended, friend_request_not_found, invalid_field}');

-- Ends a pending request: the receiver declines, the sender cancels. Recorded as `action`.
create function api.end_request(token text, params jsonb, side text, action text)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(end_request.token);
    v_pair app.friendships := api.pending_request(api.uuid_field(end_request.params, 'id'), v_user_id, end_request.side);
begin
    delete from app.friendships f where f.id = v_pair.id;
    if not api.request_hidden(v_pair) then  -- its receiver never saw it: nothing to hear of
        perform api.record_friendship_event(v_pair, v_user_id, end_request.action);
    end if;
    return api.ok(null);
end
$$;

-- POST /friend-requests/{id}/decline: only the receiver.
create function api.friend_requests_decline(token text, params jsonb, body jsonb)
returns api.reply
language sql volatile security definer set search_path = public, pg_temp
as $$ select api.end_request(friend_requests_decline.token, friend_requests_decline.params, 'receiver', 'declined') $$;
grant execute on function api.friend_requests_decline(text, jsonb, jsonb) to focus_api;
comment on function api.friend_requests_decline(text, jsonb, jsonb) is
    'POST /friend-requests/{id}/decline: only the receiver of a pending request; else 404.';
insert into api.endpoints (method, path, function, status, errors)
values ('POST', '/friend-requests/{id}/decline', 'api.friend_requests_decline', 204,
        '{account_suspended, friend_request_not_found, invalid_field}');

-- DELETE /friend-requests/{id}: only the sender cancels.
create function api.friend_requests_delete(token text, params jsonb, body jsonb)
returns api.reply
language sql volatile security definer set search_path = public, pg_temp
as $$ select api.end_request(friend_requests_delete.token, friend_requests_delete.params, 'sender', 'cancelled') $$;
grant execute on function api.friend_requests_delete(text, jsonb, jsonb) to focus_api;
comment on function api.friend_requests_delete(text, jsonb, jsonb) is
    'DELETE /friend-requests/{id}: only the sender of a pending request; else 404.';
insert into api.endpoints (method, path, function, status, errors)
values ('DELETE', '/friend-requests/{id}', 'api.friend_requests_delete', 204,
        '{account_suspended, friend_request_not_found, invalid_field}');

-- DELETE /friends/{user_id}
create function api.friends_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(friends_delete.token);
    v_other uuid := api.uuid_field(friends_delete.params, 'user_id');
    v_pair app.friendships;
begin
    if exists (select from app.users u where u.id = v_other) then
        v_pair := api.lock_pair(v_user_id, v_other);
    end if;
    if v_pair.status is distinct from 'accepted' then
        perform api.fail(404, 'not_friends', 'You are not friends with that user.');
    end if;
    delete from app.friendships f where f.id = v_pair.id;
    perform api.record_friendship_event(v_pair, v_user_id, 'removed');
    return api.ok(null);
end
$$;
grant execute on function api.friends_delete(text, jsonb, jsonb) to focus_api;
comment on function api.friends_delete(text, jsonb, jsonb) is 'DELETE /friends/{user_id}: ends a friendship; 404 not_friends.';
insert into api.endpoints (method, path, function, status, errors)
values ('DELETE', '/friends/{user_id}', 'api.friends_delete', 204,
        '{account_suspended, invalid_field, not_friends}');

-- GET /friends?limit=&cursor=: friends in the order they became friends (accepted_at, then the
-- friendship's id), at most `limit` (1 to 200; 200 when absent, so a client that asks for no
-- page gets every list of up to 200 friends whole, as before pages), and next_cursor (null on
-- the last page). Each side of the pair is read from its own index in that order
-- (friendships_low_accepted, friendships_high_accepted, migration 0022) and the two merged.
-- The ETag is a digest of the answer, so it changes exactly when the page does.
-- A friend suspended by a moderator is left out while the suspension holds.
create function api.friends_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(friends_list.token);
    v_limit integer := api.page_limit(friends_list.params, 200, 200);
    v_key jsonb := api.cursor_decode(friends_list.params, 'friends', array['time', 'uuid']);
    v_after_at timestamptz := (v_key ->> 0)::timestamptz;
    v_after_id uuid := (v_key ->> 1)::uuid;
    v_page app.friendships[];
    v_body jsonb;
begin
    with sides as (
        (select f from app.friendships f
         where f.user_low = v_user_id and f.status = 'accepted'
           and (v_key is null or (f.accepted_at, f.id) > (v_after_at, v_after_id))
           and not exists (select from app.suspensions s where s.user_id = f.user_high and s.until > now())
         order by f.accepted_at, f.id limit v_limit + 1)
        union all
        (select f from app.friendships f
         where f.user_high = v_user_id and f.status = 'accepted'
           and (v_key is null or (f.accepted_at, f.id) > (v_after_at, v_after_id))
           and not exists (select from app.suspensions s where s.user_id = f.user_low and s.until > now())
         order by f.accepted_at, f.id limit v_limit + 1)
    )
    select coalesce(array_agg(p.f order by (p.f).accepted_at, (p.f).id), '{}') into v_page
    from (select sides.f from sides order by (sides.f).accepted_at, (sides.f).id limit v_limit + 1) p;

    -- One set-based query, not api.friend_json per friend: each security-definer call per row
    -- cost a function call with its own search_path (50 friends: 20 ms down to about 1).
    select jsonb_build_object('friends', coalesce(jsonb_agg(
               api.card_json(u.id, u.display_name, a.user_id is not null, a.updated_at)
               || jsonb_build_object('selected', sel.selected, 'befriended_at', api.iso(f.accepted_at),
                                     'today_minutes', coalesce(d.minutes, 0))
               order by f.accepted_at, f.id), '[]'),
           'next_cursor', case when cardinality(v_page) > v_limit
                               then api.cursor_encode('friends', jsonb_build_array(api.iso(v_page[v_limit].accepted_at),
                                                                                   v_page[v_limit].id)) end)
    into v_body
    from unnest(v_page[1:v_limit]) f
    join app.users u on u.id = api.other_user(f, v_user_id)
    left join app.avatars a on a.user_id = u.id
    left join app.daily_minutes d on d.user_id = u.id and d.day = api.local_date(u.time_zone, now())
    cross join lateral api.selections_of(u.id) sel;
    return api.ok(v_body, etag => md5(v_body::text));
end
$$;
grant execute on function api.friends_list(text, jsonb, jsonb) to focus_api;
comment on function api.friends_list(text, jsonb, jsonb) is
    'GET /friends: the caller''s friends, oldest friendship first, paged (limit 1 to 200, 200 by default; cursor, '
    'next_cursor; 400 invalid_cursor), with an ETag of the answer.';
insert into api.endpoints (method, path, function, localized, errors)
values ('GET', '/friends', 'api.friends_list', true, '{account_suspended, invalid_cursor, invalid_field}');

-- GET /friend-requests: requests from users the caller blocked are not among the incoming.
create function api.friend_requests_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(friend_requests_list.token);
    v_body jsonb;
begin
    select jsonb_build_object(
        'incoming', coalesce(jsonb_agg(jsonb_build_object('id', f.id, 'from', api.user_card(f.requested_by),
                                                          'created_at', api.iso(f.created_at)) order by f.created_at, f.id)
                             filter (where f.requested_by <> v_user_id), '[]'),
        'outgoing', coalesce(jsonb_agg(jsonb_build_object('id', f.id,
                                                          'to', api.user_card_for(api.other_user(f, v_user_id), v_user_id),
                                                          'created_at', api.iso(f.created_at)) order by f.created_at, f.id)
                             filter (where f.requested_by = v_user_id), '[]'))
    into v_body
    from app.friendships f
    where (f.user_low = v_user_id or f.user_high = v_user_id) and f.status = 'pending'
      and (f.requested_by = v_user_id or not api.request_hidden(f));
    return api.ok(v_body, etag => md5(v_body::text));
end
$$;
grant execute on function api.friend_requests_list(text, jsonb, jsonb) to focus_api;
comment on function api.friend_requests_list(text, jsonb, jsonb) is
    'GET /friend-requests: pending requests to and from the caller, with an ETag of the answer.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/friend-requests', 'api.friend_requests_list', '{account_suspended}');

-- GET /users/{id}: a friend's island; anyone else (or a friend while suspended) is 404, exactly like an unknown id.
-- FriendProfile = Friend + {bio}: the bio is shown here only, not in the friends list; null for an
-- account under the age gate (docs/guests.md).
create function api.users_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(users_get.token);
    v_other uuid := api.uuid_field(users_get.params, 'id');
    v_pair app.friendships := api.visible_friend(v_user_id, v_other);
begin
    return api.ok(api.friend_json(v_other, v_pair.accepted_at)
                  || jsonb_build_object('bio', (select u.bio from app.users u
                                                where u.id = v_other and not app.age_restricted(u.birth_month, u.parental_consent_at))));
end
$$;
grant execute on function api.users_get(text, jsonb, jsonb) to focus_api;
comment on function api.users_get(text, jsonb, jsonb) is 'GET /users/{id}: a friend''s island with their bio; 404 for anyone else.';
insert into api.endpoints (method, path, function, localized, errors)
values ('GET', '/users/{id}', 'api.users_get', true, '{account_suspended, invalid_field, user_not_found}');
