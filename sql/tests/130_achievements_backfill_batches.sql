-- app.backfill_achievement(code, batch_size, after_id, max_events), the batched backfill that
-- CALL app.backfill_achievement_all loops (2026-12-06): ten people qualify, batches of three
-- grant them in id order, each batch saying where it stopped and whether more remain; a run
-- begun again from the start (as after an interruption) skips who holds it; a person granted
-- by a live check between batches is not granted again; in the end each of the ten holds it
-- once, is paid once and is told once (their own devices, and each friend once), and a further
-- run grants nobody. max_events bounds a batch by the events it writes, one person at least.
-- (The procedure itself commits, which a test's transaction cannot: its loop is this one.)
begin;
select plan(14);
select test.new_user(format('p%s', n)) from generate_series(1, 10) n;
select test.new_user('zed');  -- no session: never qualifies
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend('p1', 'p2'), pg_temp.befriend('p2', 'p3'), pg_temp.befriend('p9', 'zed');
select test.session(format('p%s', n), test.day_start(1), 15) from generate_series(1, 10) n;
insert into app.achievements (code, name, description, kind, threshold, reward_coins, sort_order)
values ('bulk_one', 'Once', 'Finish a focus session.', 'sessions_completed', 1, 7, 90),
       ('bulk_two', 'Once more', 'Finish a focus session.', 'sessions_completed', 1, 0, 91);
-- Who the ten are in the order batches take them (id order).
create temp table ten as
select row_number() over (order by u.id) as n, u.id from app.users u
where u.id in (select test.uid(format('p%s', k)) from generate_series(1, 10) k);
create temp table runs (run integer generated always as identity, granted integer, last_id uuid, more boolean);

insert into runs (granted, last_id, more) select * from app.backfill_achievement('bulk_one', 3);
select is((select (r.granted, r.last_id, r.more)::text from runs r where r.run = 1),
          (select (3, t.id, true)::text from ten t where t.n = 3),
          'a batch grants at most batch_size, in id order, says the last one it looked at and that more remain');
select is((select count(*)::integer from app.user_achievements ua where ua.achievement_code = 'bulk_one'
           and ua.user_id in (select t.id from ten t where t.n <= 3)), 3, 'the first three hold it');

-- Interrupted: begun again from the start, the holders are skipped.
insert into runs (granted, last_id, more) select * from app.backfill_achievement('bulk_one', 3);
select is((select (r.granted, r.last_id, r.more)::text from runs r where r.run = 2),
          (select (3, t.id, true)::text from ten t where t.n = 6),
          'a run begun again grants the next three, skipping who holds it');

-- A live check grants the seventh between batches.
select ok(app.grant_achievement((select t.id from ten t where t.n = 7), 'bulk_one'), 'a live grant between batches');
insert into runs (granted, last_id, more)
select * from app.backfill_achievement('bulk_one', 3, (select r.last_id from runs r where r.run = 2));
select is((select (r.granted, r.last_id, r.more)::text from runs r where r.run = 3),
          (select (3, t.id, true)::text from ten t where t.n = 10),
          'the next batch, after the last one looked at, skips the one a live check granted: a full batch, more maybe');
insert into runs (granted, last_id, more)
select * from app.backfill_achievement('bulk_one', 3, (select r.last_id from runs r where r.run = 3));
select is((select (r.granted, r.last_id, r.more)::text from runs r where r.run = 4),
          '(0,,f)', 'the batch after it finds nobody: no more');

select is((select count(*)::integer from app.user_achievements ua where ua.achievement_code = 'bulk_one'), 10,
          'the ten hold it, zed does not');
select is((select array_agg(c order by c) from (select count(*)::integer as c from app.coin_ledger l
                                               where l.achievement_code = 'bulk_one' group by l.user_id) x),
          array_fill(1, array[10]), 'each of the ten is paid once');
select is((select count(*)::integer from app.coin_ledger l where l.achievement_code = 'bulk_one' and l.user_id not in (select id from ten)),
          0, 'nobody else is paid');
-- Told: their own devices once each (payload user_id = recipient), each friend once per friend.
select is((select array_agg(x.line order by x.line) from (
              select format('%s heard of %s %s', coalesce(r.name, e.user_id::text), coalesce(w.name, e.payload ->> 'user_id'), count(*)) as line
              from app.events e
              left join test.accounts r on (r.account -> 'user' ->> 'id')::uuid = e.user_id
              left join test.accounts w on w.account -> 'user' ->> 'id' = e.payload ->> 'user_id'
              where e.type = 'achievement.unlocked' and e.payload ->> 'code' = 'bulk_one'
              group by 1 = 1, r.name, e.user_id, w.name, e.payload ->> 'user_id') x),
          array['p1 heard of p1 1', 'p1 heard of p2 1', 'p10 heard of p10 1', 'p2 heard of p1 1', 'p2 heard of p2 1',
                'p2 heard of p3 1', 'p3 heard of p2 1', 'p3 heard of p3 1', 'p4 heard of p4 1', 'p5 heard of p5 1',
                'p6 heard of p6 1', 'p7 heard of p7 1', 'p8 heard of p8 1', 'p9 heard of p9 1', 'zed heard of p9 1'],
          'each is told once: their own devices and each friend');

select is((select (b.granted, b.more)::text from app.backfill_achievement('bulk_one', 3) b), '(0,f)',
          'a run once all hold it grants nobody and says no more');

-- Bounded by events: bulk_two pays nothing, so a grant writes 1 + friends events; p1 (first in
-- id order or not) writes 2, p2 writes 3.
select is((select (b.granted, b.more)::text from app.backfill_achievement('bulk_two', 10, null, 1) b), '(1,t)',
          'a batch over max_events still grants one person, and says more');
select is((select count(*)::integer from app.user_achievements ua where ua.achievement_code = 'bulk_two'), 1,
          'one holds bulk_two');
select throws_ok($$select * from app.backfill_achievement('bulk_one', 0)$$, '22023', null, 'a batch of none is refused');
select * from finish();
rollback;
