-- api gifts: a person sends a friend coins or a shop item; the friend accepts or declines it.
-- The sender pays at send (a 'gift' ledger row holding the coins); accepting credits the coins
-- or grants the item, anything else refunds the sender (app.gift_end, sql/app/130_gifts.sql).
-- Locks, always in this order: the acting account's tokens (api.authenticate, or an erasure's),
-- then users' rows in id order (both users of a gift; every user of an expiry run; an erased
-- account and everyone it has a friendship row with, api.lock_for_erasure), then friendship
-- rows, then gift rows. A friendship ending takes the users' locks first too (api.lock_pair,
-- api.erase_account) and cancels the pending gifts between them (app.friendships_cancel_gifts).
-- docs/gifts.md, "Lock order".

-- Gift = {id, from: UserCard, to: UserCard, coins, item, paid, status, created_at, expires_at,
-- ended_at}: coins for a coin gift (else null), item an Item for an item gift (else null), paid
-- what the sender paid at send (the coins, or the item's price then: a sale's inside a sale).
-- The other person's card as `viewer` is shown it (api.user_card_for: as a block left it);
-- without a viewer, both cards as they are now.
create function api.gift_json(gift app.gifts, viewer uuid default null)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object(
            'id', gift.id, 'from', api.user_card_for(gift.sender_id, gift_json.viewer),
            'to', api.user_card_for(gift.receiver_id, gift_json.viewer),
            'coins', gift.coins,
            'item', (select api.item_json(i) from app.shop_items i where i.id = gift.item_id),
            'paid', gift.paid, 'status', gift.status, 'created_at', api.iso(gift.created_at),
            'expires_at', api.iso(gift.expires_at), 'ended_at', api.iso(gift.ended_at)));
end
$$;

-- Takes the row locks of two users, lower id first (deleted accounts too: the caller decides
-- what a tombstone means).
create function api.lock_two_users(a uuid, b uuid)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    perform from app.users u where u.id = least(lock_two_users.a, lock_two_users.b) for update;
    perform from app.users u where u.id = greatest(lock_two_users.a, lock_two_users.b) for update;
end
$$;

-- The gift of the path's id received by the caller, locked after both users' rows; the
-- caller's account deleted meanwhile is 401; an unknown id, or a gift the caller did not
-- receive (the sender's own included), is 404 gift_not_found.
create function api.received_gift(params jsonb, user_id uuid)
returns app.gifts
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_id uuid := api.uuid_field(received_gift.params, 'id');
    v_gift app.gifts;
begin
    select g.* into v_gift from app.gifts g where g.id = v_id and g.receiver_id = received_gift.user_id;
    if v_gift.id is null then
        perform api.fail(404, 'gift_not_found', 'There is no such gift to you.');
    end if;
    perform api.lock_two_users(v_gift.sender_id, v_gift.receiver_id);
    perform api.lock_user(received_gift.user_id);
    select g.* into v_gift from app.gifts g where g.id = v_id for update;
    return v_gift;
end
$$;

-- A pending gift past its expiry ends as expired (the sender refunded); the caller holds the
-- locks. True when it expired.
create function api.gift_expire_if_due(gift app.gifts)
returns boolean
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    if gift.status = 'pending' and gift.expires_at <= now() then
        perform app.gift_end(gift.id, 'expired');
        return true;
    end if;
    return false;
end
$$;

-- POST /gifts {to, coins | item_id}: 201 {gift, balance}. Guarantees, under both users' locks
-- (so a racing unfriend or block ends before, and the gift is refused, or after, and cancels
-- it): the sender may send gifts at all (2026-12-06): their email is verified and their account
-- is at least app.gift_settings min_sender_account_age old, else 403 gift_sender_not_eligible
-- with email_verified and account_old_enough_at, so a fresh account cannot pass on what it
-- minted (docs/gifts.md, "What a farmer could use"); the receiver is a live friend (else 404
-- user_not_found: a stranger, a blocked user either way, a deleted account and a friend while
-- suspended answer alike, docs/moderation.md), not the caller (422 cannot_gift_self); an item
-- is in the shop now exactly as for a purchase (app.item_price_at at this transaction's
-- now(): active and inside its seasonal window, else 404 item_not_found), neither owned by the
-- receiver nor waiting for them in another pending gift (409 gift_item_owned); an item costs
-- what a purchase now pays (the sale's price inside a sale), and that is the gift's paid, the
-- hold's amount and what any refund returns; the sender's gifts of the limit day
-- (api.limit_day: the UTC day, whatever their time zone, so a change of zone opens no fresh
-- day), this one included, stay within app.gift_settings max_per_day and max_coins_per_day (429
-- gift_limit_reached, Retry-After: the seconds to the end of that day); the sender can pay (409 insufficient_funds). Then the
-- gift and the sender's hold (-paid) are written together; the receiver hears gift.received.
create function api.gifts_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(gifts_create.token);
    v_body jsonb := api.only_keys(gifts_create.body, array['to', 'coins', 'item_id']);
    v_to uuid := api.uuid_field(v_body, 'to');
    v_coins integer := api.integer_field(v_body, 'coins', 1, 1000000, required => false);
    v_item_id uuid := api.uuid_field(v_body, 'item_id', required => false);
    v_settings app.gift_settings;
    v_user app.users;
    v_price integer;
    v_paid integer;
    v_day tstzrange := api.limit_day(now());
    v_sent integer;
    v_spent integer;
    v_gift app.gifts;
begin
    perform api.refuse_guest(v_user_id, 'A gift');
    if (v_coins is null) = (v_item_id is null) then
        perform api.fail_field('coins', 'or item_id: give exactly one of them.');
    end if;
    if v_to = v_user_id then
        perform api.fail(422, 'cannot_gift_self', 'A gift goes to a friend, not to yourself.');
    end if;
    perform api.lock_two_users(v_user_id, v_to);
    v_user := api.lock_user(v_user_id);
    select * into v_settings from app.gift_settings;
    if v_user.email_verified_at is null or v_user.created_at > now() - v_settings.min_sender_account_age then
        perform api.fail(403, 'gift_sender_not_eligible',
                         case when v_user.email_verified_at is null
                              then 'Verify your email before you send gifts.'
                              else 'Your account is too new to send gifts yet.' end,
                         jsonb_build_object('email_verified', v_user.email_verified_at is not null,
                                            'account_old_enough_at', api.iso(v_user.created_at + v_settings.min_sender_account_age)));
    end if;
    if not exists (select from app.users u where u.id = v_to and u.deleted_at is null)
       or not exists (select from app.friendships f
                      where f.user_low = least(v_user_id, v_to) and f.user_high = greatest(v_user_id, v_to)
                        and f.status = 'accepted')
       or exists (select from app.blocks b
                  where (b.blocker = v_user_id and b.blocked = v_to) or (b.blocker = v_to and b.blocked = v_user_id))
       or exists (select from app.suspensions s where s.user_id = v_to and s.until > now()) then
        perform api.fail(404, 'user_not_found', 'Gifts go to friends only: this is not one of yours.');
    end if;
    if v_item_id is not null then
        -- In the shop now, at the price a purchase now pays (docs/shop.md): app.item_price_at at
        -- this transaction's now(), the purchase's own helper, so an item outside its window or
        -- retired is 404 and a sale's price is what the gift costs.
        select p.price into v_price from app.item_price_at(v_item_id, now()) p;
        if v_price is null then
            perform api.fail(404, 'item_not_found', 'There is no such item in the shop.');
        end if;
        if exists (select from app.user_items ui where ui.user_id = v_to and ui.item_id = v_item_id)
           or exists (select from app.gifts g where g.receiver_id = v_to and g.item_id = v_item_id and g.status = 'pending') then
            perform api.fail(409, 'gift_item_owned', 'Your friend has this item already, or it waits for them as a gift.');
        end if;
    end if;
    v_paid := coalesce(v_coins, v_price);

    select count(*)::integer, coalesce(sum(g.paid), 0)::integer into v_sent, v_spent
    from app.gifts g where g.sender_id = v_user_id and g.created_at >= lower(v_day) and g.created_at < upper(v_day);
    if v_sent + 1 > v_settings.max_per_day or v_spent + v_paid > v_settings.max_coins_per_day then
        return api.problem(429, 'gift_limit_reached', 'You reached today''s gift limit; send more tomorrow.',
                           jsonb_build_object('max_per_day', v_settings.max_per_day, 'max_coins_per_day', v_settings.max_coins_per_day,
                                              'sent_today', v_sent, 'coins_today', v_spent),
                           retry_after => api.limit_day_retry_after(now()));
    end if;
    if v_user.balance < v_paid then
        perform api.fail(409, 'insufficient_funds', 'You do not have enough coins for this gift.',
                         jsonb_build_object('balance', v_user.balance, 'price', v_paid));
    end if;

    insert into app.gifts (sender_id, receiver_id, coins, item_id, paid, expires_at)
    values (v_user_id, v_to, v_coins, v_item_id, v_paid, now() + v_settings.expires_after)
    returning * into v_gift;
    if v_paid > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, gift_id)
        values (v_user_id, 'gift', -v_paid, 'gift sent', v_gift.id);
    end if;
    return api.ok(jsonb_build_object('gift', api.gift_json(v_gift), 'balance', v_user.balance - v_paid));
end
$$;
grant execute on function api.gifts_create(text, jsonb, jsonb) to focus_api;
comment on function api.gifts_create(text, jsonb, jsonb) is
    'POST /gifts: sends a friend coins or an item (at the price a purchase now pays), paid now and held until the gift '
    'ends; 403 gift_sender_not_eligible (email not verified, account too new), 404 user_not_found (not a friend, '
    'blocked, deleted, suspended), 422 cannot_gift_self, 404 item_not_found (also a '
    'seasonal item outside its window), 409 gift_item_owned, 429 gift_limit_reached, '
    '409 insufficient_funds; the receiver hears gift.received.';
insert into api.endpoints (method, path, function, status, body, localized, errors)
values ('POST', '/gifts', 'api.gifts_create', 201, 'json', true,
        '{account_suspended, cannot_gift_self, gift_item_owned, gift_limit_reached, gift_sender_not_eligible, guest_not_allowed, insufficient_funds, invalid_field, item_not_found, user_not_found}');

-- POST /gifts/{id}/accept: 200 {gift, balance, achievements_unlocked}. The receiver only (404
-- gift_not_found). A pending coin gift credits the coins, an item gift grants the item, in one
-- transaction with the gift's end; an item the receiver owns by now ends the gift as refunded
-- (the sender gets the price back; 200, status refunded). achievements_unlocked: what the
-- accept unlocked for the receiver (an item granted runs the item checks: the last pet
-- completes every_pet), marked unlocked_by 'gift:<id>', and balance counts their rewards
-- (api.with_achievements); the receiver's acting device hears no event of it, so the answer is
-- how it learns. Accepting again answers the same, achievements_unlocked included (2026-12-06:
-- the marks of the first accept; one credit: a double accept waits on the locks and finds it
-- accepted). A gift past its expiry ends as expired (refunded) and answers 409
-- gift_not_pending, as any other ended gift does.
create function api.gifts_accept(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(gifts_accept.token);
    v_gift app.gifts := api.received_gift(gifts_accept.params, v_user_id);
begin
    if api.gift_expire_if_due(v_gift) then
        return api.problem(409, 'gift_not_pending', 'This gift expired; its sender got the coins back.',
                           jsonb_build_object('gift_status', 'expired'));
    end if;
    if v_gift.status = 'pending' then
        perform app.gift_end(v_gift.id,
                             case when v_gift.item_id is not null
                                       and exists (select from app.user_items ui
                                                   where ui.user_id = v_user_id and ui.item_id = v_gift.item_id)
                                  then 'refunded' else 'accepted' end);
        select g.* into v_gift from app.gifts g where g.id = v_gift.id;
    elsif v_gift.status not in ('accepted', 'refunded') then
        perform api.fail(409, 'gift_not_pending', 'This gift has ended already.', jsonb_build_object('gift_status', v_gift.status));
    end if;
    return api.with_achievements(api.ok(jsonb_build_object('gift', api.gift_json(v_gift, v_user_id),
                                                          'balance', (select u.balance from app.users u where u.id = v_user_id))),
                                 v_user_id, 'gift:' || v_gift.id);
end
$$;
grant execute on function api.gifts_accept(text, jsonb, jsonb) to focus_api;
comment on function api.gifts_accept(text, jsonb, jsonb) is
    'POST /gifts/{id}/accept: the receiver takes the coins or the item (an item owned by now: refunded to the sender), '
    'with achievements_unlocked (an item can complete every_pet); again: the same; 409 gift_not_pending (declined, expired, cancelled); 404 gift_not_found.';
insert into api.endpoints (method, path, function, localized, errors)
values ('POST', '/gifts/{id}/accept', 'api.gifts_accept', true,
        '{account_suspended, gift_not_found, gift_not_pending, invalid_field}');

-- POST /gifts/{id}/decline: 200 {gift}. The receiver only (404 gift_not_found); the sender is
-- refunded in the same transaction and hears gift.declined. Declining again answers the same;
-- an accepted, expired or cancelled gift is 409 gift_not_pending (past its expiry: it ends as
-- expired first).
create function api.gifts_decline(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(gifts_decline.token);
    v_gift app.gifts := api.received_gift(gifts_decline.params, v_user_id);
begin
    if api.gift_expire_if_due(v_gift) then
        return api.problem(409, 'gift_not_pending', 'This gift expired; its sender got the coins back.',
                           jsonb_build_object('gift_status', 'expired'));
    end if;
    if v_gift.status = 'pending' then
        perform app.gift_end(v_gift.id, 'declined');
        select g.* into v_gift from app.gifts g where g.id = v_gift.id;
    elsif v_gift.status <> 'declined' then
        perform api.fail(409, 'gift_not_pending', 'This gift has ended already.', jsonb_build_object('gift_status', v_gift.status));
    end if;
    return api.ok(jsonb_build_object('gift', api.gift_json(v_gift, v_user_id)));
end
$$;
grant execute on function api.gifts_decline(text, jsonb, jsonb) to focus_api;
comment on function api.gifts_decline(text, jsonb, jsonb) is
    'POST /gifts/{id}/decline: the receiver refuses the gift, the sender is refunded; again: the same; '
    '409 gift_not_pending (accepted, expired, cancelled); 404 gift_not_found.';
insert into api.endpoints (method, path, function, localized, errors)
values ('POST', '/gifts/{id}/decline', 'api.gifts_decline', true,
        '{account_suspended, gift_not_found, gift_not_pending, invalid_field}');

-- One page of the caller's gifts, newest first (created_at, then id, both descending), at most
-- `limit` (1 to 200, 50 by default): direction 'received', the pending gifts to the caller not
-- yet expired (gifts_receiver_pending; cursor list 'gifts_received'), or 'sent', every gift the
-- caller sent, whatever became of it (gifts_sender_time; cursor list 'gifts_sent', so one
-- list's cursor is refused by the other). Each branch reads its own index: the direction is a
-- one-time filter, the other branch never runs. {gifts: [Gift], next_cursor}.
create function api.gifts_page(user_id uuid, params jsonb, direction text)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_list text := 'gifts_' || gifts_page.direction;
    v_limit integer := api.page_limit(gifts_page.params, 50, 200);
    v_key jsonb := api.cursor_decode(gifts_page.params, v_list, array['time', 'uuid']);
    v_page app.gifts[];
begin
    select coalesce(array_agg(p.g order by (p.g).created_at desc, (p.g).id desc), '{}') into v_page
    from ((select g from app.gifts g
           where gifts_page.direction = 'received'
             and g.receiver_id = gifts_page.user_id and g.status = 'pending' and g.expires_at > now()
             and (v_key is null or (g.created_at, g.id) < ((v_key ->> 0)::timestamptz, (v_key ->> 1)::uuid))
           order by g.created_at desc, g.id desc
           limit v_limit + 1)
          union all
          (select g from app.gifts g
           where gifts_page.direction = 'sent'
             and g.sender_id = gifts_page.user_id
             and (v_key is null or (g.created_at, g.id) < ((v_key ->> 0)::timestamptz, (v_key ->> 1)::uuid))
           order by g.created_at desc, g.id desc
           limit v_limit + 1)) p;
    return api.ok(jsonb_build_object(
        'gifts', coalesce((select jsonb_agg(api.gift_json(g, gifts_page.user_id) order by g.created_at desc, g.id desc)
                           from unnest(v_page[1:v_limit]) g), '[]'),
        'next_cursor', case when cardinality(v_page) > v_limit
                            then api.cursor_encode(v_list, jsonb_build_array(api.iso(v_page[v_limit].created_at),
                                                                             v_page[v_limit].id)) end));
end
$$;

-- GET /gifts/received?limit=&cursor=: {gifts: [Gift], next_cursor}, the caller's pending gifts
-- not yet expired, newest first, paged (api.gifts_page, direction 'received').
create function api.gifts_received_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.gifts_page(api.authenticate(gifts_received_list.token), gifts_received_list.params, 'received'));
end
$$;
grant execute on function api.gifts_received_list(text, jsonb, jsonb) to focus_api;
comment on function api.gifts_received_list(text, jsonb, jsonb) is
    'GET /gifts/received: the caller''s pending gifts, newest first, paged (limit 1 to 200, 50 by default; cursor, '
    'next_cursor; 400 invalid_cursor).';
insert into api.endpoints (method, path, function, localized, errors)
values ('GET', '/gifts/received', 'api.gifts_received_list', true,
        '{account_suspended, invalid_cursor, invalid_field}');

-- GET /gifts/sent?limit=&cursor=: {gifts: [Gift], next_cursor}, every gift the caller sent,
-- whatever became of it, newest first, paged (api.gifts_page, direction 'sent').
create function api.gifts_sent_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.gifts_page(api.authenticate(gifts_sent_list.token), gifts_sent_list.params, 'sent'));
end
$$;
grant execute on function api.gifts_sent_list(text, jsonb, jsonb) to focus_api;
comment on function api.gifts_sent_list(text, jsonb, jsonb) is
    'GET /gifts/sent: the gifts the caller sent and how each ended, newest first, paged (limit 1 to 200, 50 by '
    'default; cursor, next_cursor; 400 invalid_cursor).';
insert into api.endpoints (method, path, function, localized, errors)
values ('GET', '/gifts/sent', 'api.gifts_sent_list', true,
        '{account_suspended, invalid_cursor, invalid_field}');

-- Expiry (the scheduled job expire_gifts, sql/api/140_jobs.sql): each pending gift past expires_at
-- (oldest first, at most 1000 a run) ends as expired and refunds its sender, so an accept or
-- decline racing it finds it expired (409) or ended it first. Locks in the one order (docs/gifts.md
-- "Lock order"): every sender's and receiver's row of the run at once, in id order, then the
-- gifts, in id order; taken gift by gift, two gifts of a run would take their users out of order
-- and could deadlock with any two-user path. Returns how many expired. Tests call it directly
-- at a moved clock.
create function api.gifts_expire()
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_due uuid[] := array(select g.id from app.gifts g where g.status = 'pending' and g.expires_at <= now()
                          order by g.expires_at, g.id limit 1000);
    v_gift app.gifts;
    v_count integer := 0;
begin
    perform from app.users u
    where u.id in (select g.sender_id from app.gifts g where g.id = any(v_due)
                   union select g.receiver_id from app.gifts g where g.id = any(v_due))
    order by u.id
    for update;
    perform from app.gifts g where g.id = any(v_due) order by g.id for update;
    for v_gift in
        select g.* from app.gifts g where g.id = any(v_due) order by g.expires_at, g.id
    loop
        if api.gift_expire_if_due(v_gift) then
            v_count := v_count + 1;
        end if;
    end loop;
    return v_count;
end
$$;
