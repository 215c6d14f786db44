-- Gifts' daily limits count the UTC day (api.limit_day), whatever the sender's time zone (a
-- gift a second before UTC midnight is yesterday's, even for a sender at UTC+14), and a change
-- of zone opens no fresh day; expiry refunds the sender (the scheduled job, or an accept or
-- decline that finds the gift overdue); an account deleted with gifts pending leaves them
-- cancelled and refunded, its gifts tied to the tombstone; the export holds one's gifts.
begin;
select plan(27);
select test.new_user(name) from unnest(array['ann', 'bob', 'cat']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend('ann', 'bob');
select pg_temp.befriend('ann', 'cat');
select app.grant_coins(test.uid('ann'), 1000, 'test');
-- Ann lives in UTC+14 (PATCH /me): her local day starts ten hours before the UTC day.
select api.me_update(test.token('ann'), '{}', '{"settings": {"time_zone": "Pacific/Kiritimati"}}');
update app.gift_settings set max_per_day = 3, max_coins_per_day = 100;
-- Two gifts of hers that ended, written straight into the table: one a second before UTC
-- midnight (yesterday's, though her own clock read the same local day then: not counted), one
-- at it (today's).
insert into app.gifts (sender_id, receiver_id, coins, paid, status, created_at, expires_at, ended_at)
values (test.uid('ann'), test.uid('bob'), 90, 90, 'declined', test.day_start() - interval '1 second',
        test.day_start() + interval '7 days', test.day_start() - interval '1 second'),
       (test.uid('ann'), test.uid('bob'), 40, 40, 'declined', test.day_start(),
        test.day_start() + interval '7 days', test.day_start());
create function pg_temp.send(who text, body jsonb) returns api.reply language sql as $$
    select api.gifts_create(test.token(who), '{}', body)
$$;

select is((pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'coins', 60))).body -> 'gift' ->> 'status', 'pending',
          '40 coins today at UTC midnight + 60: the coin limit (100) is reached, not passed; yesterday''s 90 do not count');
select is(test.answer_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('bob'), 'coins', 1))),
          'PT429 gift_limit_reached', 'one coin more: 429 gift_limit_reached');
select is((select (r.body ->> 'coins_today')::integer from pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'coins', 1)) r), 100,
          '... saying how many coins she gave today');
select is((select r.retry_after from pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'coins', 1)) r),
          greatest(1, ceil(extract(epoch from test.day_start(-1) - now())))::integer,
          '... Retry-After: the seconds to the next UTC midnight, not to her own');
select is((select count(*)::integer from app.gifts where sender_id = test.uid('ann')), 3, '... and wrote nothing');

-- A change of zone opens no fresh day. Dan, at UTC+14 too, gave his day's 100 coins at the
-- first instant of the UTC day (written as the endpoint would have then), and is refused more;
-- he then moves (PATCH /me) to the zone whose midnight passed last, after that instant whenever
-- the UTC day is more than a few minutes old: by his new local day he gave nothing yet (the
-- former rule, api.local_period_start in his zone, let him give 100 more, and again at the
-- next zone's midnight), by the UTC day still 100.
select test.new_user('dan');
select pg_temp.befriend('dan', 'bob');
select app.grant_coins(test.uid('dan'), 1000, 'test');
select api.me_update(test.token('dan'), '{}', '{"settings": {"time_zone": "Pacific/Kiritimati"}}');
insert into app.gifts (sender_id, receiver_id, coins, paid, status, created_at, expires_at, ended_at)
values (test.uid('dan'), test.uid('bob'), 100, 100, 'declined', test.day_start(), test.day_start() + interval '7 days', test.day_start());
select is(test.answer_of(format($$ select pg_temp.send('dan', %L) $$, jsonb_build_object('to', test.uid('bob'), 'coins', 1))),
          'PT429 gift_limit_reached', 'dan gave his day''s 100 coins: one more is 429 gift_limit_reached');
create temp table latest_midnight as
select z.name from pg_timezone_names z order by now() - test.local_day_start(z.name), z.name limit 1;
select is((api.me_update(test.token('dan'), '{}', jsonb_build_object('settings', jsonb_build_object('time_zone', (select name from latest_midnight)))))
          .body -> 'settings' ->> 'time_zone', (select name from latest_midnight),
          'dan moves to the zone whose midnight passed last');
select is(test.answer_of(format($$ select pg_temp.send('dan', %L) $$, jsonb_build_object('to', test.uid('bob'), 'coins', 1))),
          'PT429 gift_limit_reached', '... and one coin more is still 429 gift_limit_reached');
select is((select (r.body ->> 'coins_today')::integer from pg_temp.send('dan', jsonb_build_object('to', test.uid('bob'), 'coins', 1)) r), 100,
          '... his 100 coins of the UTC day counted');
select is((select r.retry_after from pg_temp.send('dan', jsonb_build_object('to', test.uid('bob'), 'coins', 1)) r),
          greatest(1, ceil(extract(epoch from test.day_start(-1) - now())))::integer,
          '... Retry-After still the seconds to the next UTC midnight');
select is((select count(*)::integer from app.gifts where sender_id = test.uid('dan')), 1, '... and nothing was written');

update app.gift_settings set max_coins_per_day = 1000;
select is((pg_temp.send('ann', jsonb_build_object('to', test.uid('cat'), 'coins', 5))).body -> 'gift' ->> 'status', 'pending',
          'a third gift today (the limit is 3 a day)');
select is(test.answer_of(format($$ select pg_temp.send('ann', %L) $$, jsonb_build_object('to', test.uid('cat'), 'coins', 5))),
          'PT429 gift_limit_reached', 'a fourth: 429 gift_limit_reached, whoever it is for');
update app.gift_settings set max_per_day = 10;

-- Expiry: a gift past expires_at, written as the endpoint would have a week ago.
insert into app.gifts (id, sender_id, receiver_id, coins, paid, created_at, expires_at)
values ('30303030-0001-4030-8030-303030303030', test.uid('ann'), test.uid('bob'), 20, 20, now() - interval '8 days', now() - interval '1 day'),
       ('30303030-0002-4030-8030-303030303030', test.uid('ann'), test.uid('bob'), 30, 30, now() - interval '8 days', now());
insert into app.coin_ledger (user_id, entry, amount, reason, gift_id)
values (test.uid('ann'), 'gift', -20, 'gift sent', '30303030-0001-4030-8030-303030303030'),
       (test.uid('ann'), 'gift', -30, 'gift sent', '30303030-0002-4030-8030-303030303030');
select is((select jsonb_agg(x -> 'coins') from jsonb_array_elements((api.gifts_received_list(test.token('bob'), '{}', null)).body -> 'gifts') x),
          '[60]', 'bob''s pending list leaves the overdue gifts out');
select is(test.answer_of($$ select api.gifts_accept(test.token('bob'), '{"id": "30303030-0001-4030-8030-303030303030"}', '{}') $$),
          'PT409 gift_not_pending', 'bob accepts an overdue gift: 409 gift_not_pending');
select is((select status from app.gifts where id = '30303030-0001-4030-8030-303030303030'), 'expired', '... it ended as expired');
select is((select amount from app.coin_ledger where gift_id = '30303030-0001-4030-8030-303030303030' and amount > 0 and user_id = test.uid('ann')),
          20, '... and ann got her 20 back');
select is(test.answer_of($$ select api.gifts_decline(test.token('bob'), '{"id": "30303030-0001-4030-8030-303030303030"}', '{}') $$),
          'PT409 gift_not_pending', 'declining it then: 409 too');
update app.scheduled_jobs set next_run_at = now() where name = 'expire_gifts';
select ok(api.jobs_run() >= 1, 'the scheduler runs the due jobs');
select is((select last_result from app.scheduled_jobs where name = 'expire_gifts'), 1, '... expire_gifts expired the one due at this instant');
select is((select status from app.gifts where id = '30303030-0002-4030-8030-303030303030'), 'expired', '... as expired');
select is(api.gifts_expire(), 0, 'run again: nothing left to expire');

-- Account deletion: bob goes with ann's gift pending; it is cancelled and refunded.
create temp table gb as select (pg_temp.send('ann', jsonb_build_object('to', test.uid('bob'), 'coins', 7))).body as sent;
select api.erase_account(test.uid('bob'), null);
select is((select status from app.gifts where id = (select (sent -> 'gift' ->> 'id')::uuid from gb)), 'cancelled',
          'bob deletes his account: ann''s pending gift is cancelled');
select is((select count(*)::integer from app.gifts where status = 'pending' and test.uid('bob') in (sender_id, receiver_id)), 0,
          '... nothing of his waits');
select is((select x -> 'to' ->> 'display_name' from jsonb_array_elements((api.gifts_sent_list(test.token('ann'), '{}', null)).body -> 'gifts') x
           where x ->> 'id' = (select sent -> 'gift' ->> 'id' from gb)),
          'Deleted user', 'ann''s sent list shows it to the tombstone, nameless');
select ok(((api.me_export_get(test.token('ann'), '{}', null)).body -> 'gifts') @> jsonb_build_array(jsonb_build_object('id', (select sent -> 'gift' ->> 'id' from gb))),
          'ann''s export holds her gifts');
select is_empty($$ select * from report.ledger_reconciliation $$, 'every balance is its ledger''s sum');

select * from finish();
rollback;
