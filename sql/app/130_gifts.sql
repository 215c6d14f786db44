-- Gifts between friends: the state machine's guard, the one function that ends a gift and
-- moves its coins or item, the events, and the cancellation when a friendship ends. Bound in
-- 0030_gifts.sql; the endpoints are in sql/api/130_gifts.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- A gift changes once: from pending to one of its ends, with ended_at; nothing else of it ever
-- changes (who, what, what was paid, when).
create or replace function app.gifts_transition()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if old.status <> 'pending' or new.status = 'pending' then
        raise exception 'gift % is %: a gift ends once', old.id, old.status using errcode = 'restrict_violation';
    end if;
    if (new.id, new.sender_id, new.receiver_id, new.coins, new.item_id, new.paid, new.created_at, new.expires_at)
       is distinct from (old.id, old.sender_id, old.receiver_id, old.coins, old.item_id, old.paid, old.created_at, old.expires_at) then
        raise exception 'gift %: only its status and end change', old.id using errcode = 'restrict_violation';
    end if;
    return new;
end
$$;

-- Ends a pending gift as `status`, now, and moves what it held, in the caller's transaction.
-- The caller holds both users' row locks (lower id first), then the gift's. accepted: the
-- receiver is credited the coins (a 'gift' ledger row) or granted the item (app.user_items);
-- any other end refunds the sender what they paid. A gift no longer pending is left as it is
-- (the ledger's unique indexes forbid a second settlement anyway). No row type in the
-- signature: this file is loaded before the migration that creates the table.
create or replace function app.gift_end(gift_id uuid, status text)
returns void
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_gift record;
begin
    update app.gifts g set status = gift_end.status, ended_at = now()
    where g.id = gift_end.gift_id and g.status = 'pending'
    returning g.* into v_gift;
    if not found then
        return;
    end if;
    if v_gift.status = 'accepted' then
        if v_gift.coins is not null then
            insert into app.coin_ledger (user_id, entry, amount, reason, gift_id)
            values (v_gift.receiver_id, 'gift', v_gift.coins, 'gift received', v_gift.id);
        else
            insert into app.user_items (user_id, item_id) values (v_gift.receiver_id, v_gift.item_id);
        end if;
    elsif v_gift.paid > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, gift_id)
        values (v_gift.sender_id, 'gift', v_gift.paid, 'gift refunded', v_gift.id);
    end if;
end
$$;

-- A gift sent: gift.received to its receiver (the sender as user_id, so a push names them).
-- A gift ended: gift.accepted to its sender, or gift.declined with how it ended and the refund.
-- The receiver's own answer says what they did; nobody else hears of it.
create or replace function app.gifts_events()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'INSERT' then
        insert into app.events (user_id, type, payload)
        values (new.receiver_id, 'gift.received',
                jsonb_build_object('gift_id', new.id, 'user_id', new.sender_id, 'coins', new.coins, 'item_id', new.item_id));
    elsif new.status <> old.status and new.status = 'accepted' then
        insert into app.events (user_id, type, payload)
        values (new.sender_id, 'gift.accepted', jsonb_build_object('gift_id', new.id, 'user_id', new.receiver_id));
    elsif new.status <> old.status then
        insert into app.events (user_id, type, payload)
        values (new.sender_id, 'gift.declined',
                jsonb_build_object('gift_id', new.id, 'user_id', new.receiver_id, 'status', new.status, 'refund', new.paid));
    end if;
    return null;
end
$$;

-- A friendship ended (unfriend, block, account deletion): the pending gifts between the two,
-- either way, are cancelled and refunded in the same transaction, so a pending gift always has
-- a friendship under it and no gift is ever accepted across a block or by a deleted account.
-- The deleting function holds the users' locks; each gift is locked before it ends.
create or replace function app.friendships_cancel_gifts()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_id uuid;
begin
    for v_id in
        select g.id from app.gifts g
        where g.status = 'pending'
          and ((g.sender_id = old.user_low and g.receiver_id = old.user_high)
               or (g.sender_id = old.user_high and g.receiver_id = old.user_low))
        order by g.id
        for update
    loop
        perform app.gift_end(v_id, 'cancelled');
    end loop;
    return null;
end
$$;
