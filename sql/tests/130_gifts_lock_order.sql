-- A gift's refund racing the other person's account erasure cannot deadlock (docs/gifts.md,
-- "Lock order"): two other sessions (dblink) play the race, one step at a time. Each time the
-- friend with the lower id has taken their own row's lock, the first lock of their path
-- (decline, unfriend, block, the expiry job: users in id order), then the other deletes their
-- account: erasure locks the same rows in the same order, so it waits for that lock holding
-- nothing the path needs next (before 2026-12-01 it held its own row and waited for the friend's
-- to refund a gift of theirs, and the path then waited for its row: a deadlock). The path then
-- runs, commits, and the erasure ends after it; each gift is settled once.
-- (The fixtures commit for real, under fresh addresses; every account ends deleted, no gift
-- pending, so nothing of them reaches another file's assertions.)
begin;
select plan(25);
create extension if not exists dblink;
select dblink_connect('setup', test.dblink_conninfo());
select dblink_connect('path', test.dblink_conninfo());
select dblink_connect('erasure', test.dblink_conninfo());
-- A regression waits here instead of deadlocking at a moved clock: fail, do not hang.
select dblink_exec(c, 'set lock_timeout = ''20s''') from unnest(array['path', 'erasure']) c;
create temp table pids as
select (select t.pid from dblink('path', 'select pg_backend_pid()') as t(pid integer)) as path,
       (select t.pid from dblink('erasure', 'select pg_backend_pid()') as t(pid integer)) as erasure;

-- An account, committed, with its email verified and made a year ago (so it may send gifts,
-- as test.new_user's accounts may): {id, token, email}.
create function pg_temp.account() returns jsonb language plpgsql as $$
declare
    v_body jsonb;
begin
    perform dblink_exec('setup', 'update app.auth_settings set bcrypt_cost = 4');
    select t.b::jsonb into v_body from dblink('setup', format('select (api.auth_register(null, ''{}'', %L)).body::text',
        jsonb_build_object('email', 'lock-order-' || gen_random_uuid() || '@example.com', 'password', 'correct horse',
                           'display_name', 'Lock Order'))) as t(b text);
    perform dblink_exec('setup', format('update app.users set email_verified_at = now(), created_at = now() - interval ''1 year'' where id = %L',
                                        v_body #>> '{user,id}'));
    return jsonb_build_object('id', v_body #>> '{user,id}', 'token', v_body ->> 'token', 'email', v_body #>> '{user,email}');
end
$$;
-- Two friends, committed: each sends the other a gift (so erasing either refunds the other);
-- the rows as {low: {id, token, email}, high: {...}, low_gift, high_gift} (low: the lower id).
create function pg_temp.friends() returns jsonb language plpgsql as $$
declare
    v_a jsonb := pg_temp.account();
    v_b jsonb := pg_temp.account();
    v_low jsonb;
    v_high jsonb;
    v_gifts uuid[];
begin
    if (v_a ->> 'id')::uuid < (v_b ->> 'id')::uuid then v_low := v_a; v_high := v_b; else v_low := v_b; v_high := v_a; end if;
    perform from dblink('setup', format('select (api.friend_requests_create(%L, ''{}'', %L)).status::text', v_low ->> 'token',
                                        jsonb_build_object('email', v_high ->> 'email'))) as t(v text);
    perform from dblink('setup', format('select (api.friend_requests_create(%L, ''{}'', %L)).status::text', v_high ->> 'token',
                                        jsonb_build_object('email', v_low ->> 'email'))) as t(v text);
    perform from unnest(array[v_low ->> 'id', v_high ->> 'id']) u,
                 dblink('setup', format('select app.grant_coins(%L, 100, ''test'')::text', u)) as t(v text);
    select array_agg(t.id order by t.n) into v_gifts from (
        select 1 as n, g.id from dblink('setup', format('select (api.gifts_create(%L, ''{}'', %L)).body #>> ''{gift,id}''', v_low ->> 'token',
                                                        jsonb_build_object('to', v_high ->> 'id', 'coins', 30))) as g(id uuid)
        union all
        select 2, g.id from dblink('setup', format('select (api.gifts_create(%L, ''{}'', %L)).body #>> ''{gift,id}''', v_high ->> 'token',
                                                   jsonb_build_object('to', v_low ->> 'id', 'coins', 20))) as g(id uuid)) t;
    return jsonb_build_object('low', v_low, 'high', v_high, 'low_gift', v_gifts[1], 'high_gift', v_gifts[2]);
end
$$;

-- Waits (at most a minute) until the erasure session waits for a lock the path session holds.
create function pg_temp.erasure_waits() returns boolean language plpgsql as $$
begin
    for i in 1..600 loop
        if (select p.path = any(pg_blocking_pids(p.erasure)) from pids p) then
            return true;
        end if;
        perform pg_sleep(0.1);
    end loop;
    return false;
end
$$;
-- A session's result: its one text value ('ok' for null: an answer with no problem code), or
-- 'error <message>' when it failed.
create function pg_temp.result(session text) returns text language plpgsql as $$
declare
    v_value text;
begin
    select t.v into v_value from dblink_get_result(session, false) as t(v text);
    v_value := case when found then coalesce(v_value, 'ok') else 'error ' || dblink_error_message(session) end;
    perform from dblink_get_result(session, false) as t(v text);  -- the end of its results
    return v_value;
end
$$;

-- The race: the path session takes the low friend's lock, the erasure of the high one starts and
-- waits for it, then the path runs `path_sql` and commits; both answers, and the high one is
-- deleted. Records the two answers in `race`.
create temp table race (race_name text primary key, fixture jsonb, path text, erasure text);
create function pg_temp.race(name text, path_sql text) returns void language plpgsql as $$
declare
    v_f jsonb := pg_temp.friends();
begin
    perform dblink_exec('path', 'begin');
    perform t.id from dblink('path', format('select (api.lock_user(%L)).id', v_f #>> '{low,id}')) as t(id uuid);
    perform dblink_send_query('erasure', format('select (api.me_delete(%L, ''{}'', ''{"password": "correct horse"}'')).code',
                                                v_f #>> '{high,token}'));
    if not pg_temp.erasure_waits() then
        raise exception 'the erasure never waited for the path''s lock';
    end if;
    perform dblink_send_query('path', replace(replace(replace(path_sql, ':low_token', quote_literal(v_f #>> '{low,token}')),
                                                      ':high_id', quote_literal(v_f #>> '{high,id}')),
                                              ':high_gift', quote_literal(v_f ->> 'high_gift')));
    insert into race values (name, v_f, pg_temp.result('path'), null);
    perform dblink_exec('path', 'commit');
    update race r set erasure = pg_temp.result('erasure') where r.race_name = race.name;
end
$$;
-- A gift's end and what the ledger holds for it, '<status> <amount>, <amount>'.
create function pg_temp.gift(gift_id text) returns text language sql as $$
    select g.status || ' ' || (select string_agg(c.amount::text, ', ' order by c.id) from app.coin_ledger c where c.gift_id = g.id)
    from app.gifts g where g.id = gift.gift_id::uuid
$$;

-- Decline: the low friend declines the high one's gift (refunding them) while they delete their account.
select pg_temp.race('decline', 'select coalesce((api.gifts_decline(:low_token, jsonb_build_object(''id'', :high_gift), ''{}'')).body #>> ''{gift,status}'', ''?'')');
select is((select path from race where race_name = 'decline'), 'declined', 'decline racing the sender''s erasure: the decline answers');
select is((select erasure from race where race_name = 'decline'), 'ok', '... the erasure then ends too, neither is a deadlock');
select is(pg_temp.gift((select fixture ->> 'high_gift' from race where race_name = 'decline')), 'declined -20, 20',
          '... the declined gift: held, refunded once');
select is(pg_temp.gift((select fixture ->> 'low_gift' from race where race_name = 'decline')), 'cancelled -30, 30',
          '... the low friend''s gift to the deleted account: cancelled by the erasure, refunded once');
select is((select sum(c.amount)::integer from app.coin_ledger c
           where c.user_id = (select (fixture #>> '{low,id}')::uuid from race where race_name = 'decline') and c.entry = 'gift'),
          0, '... the low friend has every coin of their gift back');

-- Unfriend: the low friend ends the friendship (cancelling both gifts) while the other deletes their account.
select pg_temp.race('unfriend', 'select (api.friends_delete(:low_token, jsonb_build_object(''user_id'', :high_id), ''{}'')).code');
select is((select path from race where race_name = 'unfriend'), 'ok', 'unfriend racing the friend''s erasure: the unfriend answers');
select is((select erasure from race where race_name = 'unfriend'), 'ok', '... the erasure then ends too');
select is(array[pg_temp.gift((select fixture ->> 'low_gift' from race where race_name = 'unfriend')),
                pg_temp.gift((select fixture ->> 'high_gift' from race where race_name = 'unfriend'))],
          array['cancelled -30, 30', 'cancelled -20, 20'], '... both gifts cancelled by the unfriend, each refunded once');

-- Block: the same through a block.
select pg_temp.race('block', 'select (api.users_block_create(:low_token, jsonb_build_object(''id'', :high_id), ''{}'')).code');
select is((select path from race where race_name = 'block'), 'ok', 'block racing the friend''s erasure: the block answers');
select is((select erasure from race where race_name = 'block'), 'ok', '... the erasure then ends too');
select is(array[pg_temp.gift((select fixture ->> 'low_gift' from race where race_name = 'block')),
                pg_temp.gift((select fixture ->> 'high_gift' from race where race_name = 'block'))],
          array['cancelled -30, 30', 'cancelled -20, 20'], '... both gifts cancelled, each refunded once');

-- Expiry: the job expires the high one's gift (written overdue, its hold in the ledger) while they delete their account.
create function pg_temp.overdue_gift(fixture jsonb) returns void language plpgsql as $$
begin
    perform dblink_exec('setup', format($q$
        with g as (insert into app.gifts (sender_id, receiver_id, coins, paid, created_at, expires_at)
                   values (%1$L, %2$L, 10, 10, now() - interval '8 days', now() - interval '1 day') returning id, sender_id, paid)
        insert into app.coin_ledger (user_id, entry, amount, reason, gift_id) select sender_id, 'gift', -paid, 'gift sent', id from g $q$,
        fixture #>> '{high,id}', fixture #>> '{low,id}'));
end
$$;
create function pg_temp.race_expiry() returns void language plpgsql as $$
declare
    v_f jsonb := pg_temp.friends();
begin
    perform pg_temp.overdue_gift(v_f);
    perform dblink_exec('path', 'begin');
    perform t.id from dblink('path', format('select (api.lock_user(%L)).id', v_f #>> '{low,id}')) as t(id uuid);
    perform dblink_send_query('erasure', format('select (api.me_delete(%L, ''{}'', ''{"password": "correct horse"}'')).code',
                                                v_f #>> '{high,token}'));
    if not pg_temp.erasure_waits() then
        raise exception 'the erasure never waited for the path''s lock';
    end if;
    perform dblink_send_query('path', 'select api.gifts_expire()::text');
    insert into race values ('expiry', v_f, pg_temp.result('path'), null);
    perform dblink_exec('path', 'commit');
    update race set erasure = pg_temp.result('erasure') where race_name = 'expiry';
end
$$;
select pg_temp.race_expiry();
select is((select path from race where race_name = 'expiry'), '1', 'the expiry job racing the sender''s erasure: it expires the overdue gift');
select is((select erasure from race where race_name = 'expiry'), 'ok', '... the erasure then ends too');
select is((select string_agg(g.status || ' ' || g.paid, ', ' order by g.paid) from app.gifts g
           where g.sender_id = (select (fixture #>> '{high,id}')::uuid from race where race_name = 'expiry')),
          'expired 10, cancelled 20', '... the overdue gift expired, the other cancelled by the erasure');
select is((select sum(c.amount)::integer from app.coin_ledger c
           where c.user_id = (select (fixture #>> '{high,id}')::uuid from race where race_name = 'expiry') and c.entry = 'gift'),
          0, '... the deleted sender was refunded both, once each');

-- A friend request made while the erasure waits (the erasure read the account's friends before
-- it got the account's row): it reads them again, locks the newcomer too, and ends the request.
create function pg_temp.race_request() returns void language plpgsql as $$
declare
    v_f jsonb := pg_temp.friends();
    v_newcomer jsonb := pg_temp.account();
begin
    perform dblink_exec('path', 'begin');
    perform t.id from dblink('path', format('select (api.lock_user(%L)).id', v_f #>> '{high,id}')) as t(id uuid);
    perform dblink_send_query('erasure', format('select (api.me_delete(%L, ''{}'', ''{"password": "correct horse"}'')).code',
                                                v_f #>> '{high,token}'));
    if not pg_temp.erasure_waits() then
        raise exception 'the erasure never waited for the path''s lock';
    end if;
    perform dblink_send_query('path', format('select (api.friend_requests_create(%L, ''{}'', %L)).code', v_newcomer ->> 'token',
                                             jsonb_build_object('email', v_f #>> '{high,email}')));
    insert into race values ('request', v_f || jsonb_build_object('newcomer', v_newcomer), pg_temp.result('path'), null);
    perform dblink_exec('path', 'commit');
    update race set erasure = pg_temp.result('erasure') where race_name = 'request';
end
$$;
select pg_temp.race_request();
select is((select path from race where race_name = 'request'), 'ok', 'a friend request to an account whose erasure waits: it is made');
select is((select erasure from race where race_name = 'request'), 'ok', '... the erasure then ends too');
select is((select count(*)::integer from race r join app.friendships f
           on (r.fixture #>> '{high,id}')::uuid in (f.user_low, f.user_high) where r.race_name = 'request'),
          0, '... and ended that request with the rest (it read the friends again)');
select is((select count(*)::integer from race r,
           dblink('setup', format('select (api.me_delete(%L, ''{}'', ''{"password": "correct horse"}'')).code',
                                  r.fixture #>> '{newcomer,token}')) as t(code text) where r.race_name = 'request' and t.code is null),
          1, 'the newcomer deletes their account too');

-- Every race: the high friend is a tombstone, no gift waits, every balance is its ledger's sum.
select is((select count(*)::integer from race r join app.users u on u.id = (r.fixture #>> '{high,id}')::uuid
           where u.deleted_at is not null), 5, 'in each race the erasure went through');
select is((select count(*)::integer from race r join app.gifts g
           on (g.sender_id, g.receiver_id) in (((r.fixture #>> '{low,id}')::uuid, (r.fixture #>> '{high,id}')::uuid),
                                               ((r.fixture #>> '{high,id}')::uuid, (r.fixture #>> '{low,id}')::uuid))
           where g.status = 'pending'), 0, '... and no gift between the friends is pending');
select is_empty($$ select * from report.ledger_reconciliation $$, '... every balance is its ledger''s sum');

-- The fixtures' other accounts go too, committed, so no live account of this file stays.
select is((select count(*)::integer from race r,
           dblink('setup', format('select (api.me_delete(%L, ''{}'', ''{"password": "correct horse"}'')).code',
                                  r.fixture #>> '{low,token}')) as t(code text) where t.code is null),
          5, 'the low friends delete their accounts too');
select is((select count(*)::integer from race r join app.users u on u.id = (r.fixture #>> '{low,id}')::uuid where u.deleted_at is null),
          0, '... no live account of this file stays');
select is((select count(*)::integer from pg_stat_activity a where a.wait_event_type = 'Lock' and a.datname = current_database()),
          0, 'nothing waits any more');

select dblink_disconnect(c) from unnest(array['setup', 'path', 'erasure']) c;
select * from finish();
rollback;
