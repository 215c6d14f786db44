-- A repeated write answers what the first answered, achievements_unlocked included: each write
-- whose answer carries the member (a live finish, an offline record, a batch item, a purchase,
-- an acceptance, asking back, a gift's accept) is called twice, its first call unlocking an achievement, and the
-- two answers are compared whole. A repeat grants and pays nothing; a write that unlocked
-- nothing repeats []; what a write unlocked for someone else is not the caller's to repeat.
begin;
select plan(41);
select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal', 'ivy', 'jay', 'kim']) as name;
create function pg_temp.codes(body jsonb) returns text language sql as $$
    select coalesce(string_agg(a.value ->> 'code', ',' order by a.n), '')
    from jsonb_array_elements(body -> 'achievements_unlocked') with ordinality a (value, n)
$$;
create function pg_temp.rewards(name text) returns text language sql as $$
    select coalesce(string_agg(c.achievement_code || ' ' || c.amount, ', ' order by c.id), '')
    from app.coin_ledger c where c.user_id = test.uid(name) and c.entry = 'reward'
$$;
-- A live session of `name` started with a 25-minute plan, moved to have started `ago` before now.
create function pg_temp.started(name text, ago interval) returns uuid language plpgsql as $$
declare
    v_id uuid := ((api.focus_sessions_start(test.token(name), '{}', '{"planned_minutes": 25}')).body -> 'session' ->> 'id')::uuid;
begin
    update app.focus_sessions s
    set started_at = s.started_at - ago, occupies = tstzrange(lower(s.occupies) - ago, upper(s.occupies) - ago)
    where s.id = v_id;
    return v_id;
end
$$;
-- An offline session of `name`: 30 minutes ending `hours` hours after yesterday's start (UTC).
create function pg_temp.offline(id uuid, hours integer) returns jsonb language sql as $$
    select jsonb_build_object('id', id, 'planned_minutes', 30,
                              'started_at', api.iso(test.day_start(1) + make_interval(hours => hours, mins => -30)),
                              'ended_at', api.iso(test.day_start(1) + make_interval(hours => hours)))
$$;
create temporary table answers (name text primary key, reply api.reply) on commit drop;

-- The live finish: first_session, then the same answer again, byte for byte.
create temporary table ids on commit drop as select pg_temp.started('ann', interval '30 minutes') as ann_session;
insert into answers select 'finish', api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', ann_session), '{}') from ids;
insert into answers select 'finish again', api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', ann_session), '{}') from ids;
insert into answers select 'finish again at', api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', ann_session),
                                                                        jsonb_build_object('ended_at', api.iso(now()))) from ids;
select is(pg_temp.codes((select (reply).body from answers where name = 'finish')), 'first_session', 'the finish unlocks first_session');
select is((select (reply).body::text from answers where name = 'finish again'), (select (reply).body::text from answers where name = 'finish'),
          'finishing again answers the first answer''s body, achievements_unlocked included');
select is((select (reply).status from answers where name = 'finish again'), (select (reply).status from answers where name = 'finish'),
          '... with the same status');
select is((select (reply).body::text from answers where name = 'finish again at'), (select (reply).body::text from answers where name = 'finish'),
          '... whatever ended_at the repeat says');
select is(pg_temp.rewards('ann'), 'first_session 10', 'the repeats paid nothing');
select api.focus_sessions_rate(test.token('ann'), jsonb_build_object('id', ann_session), '{"rating": "good"}') from ids;
select app.grant_coins(test.uid('ann'), 7, 'test');
select is((api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', ann_session), '{}')).body::text,
          (select (reply).body::text from answers where name = 'finish'),
          'rated and with its balance moved since, finishing again still answers the first answer') from ids;
select is((select unlocked_by from app.user_achievements where user_id = test.uid('ann')), 'session:' || (select ann_session from ids),
          'the unlock names the write that unlocked it');

-- A second session unlocks nothing: its repeat says so too.
create temporary table second_session on commit drop as  -- the first one ended 5 minutes before now
select pg_temp.started('ann', interval '4 minutes') as id;
select is(pg_temp.codes((api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', id), '{}')).body), '',
          'a second session unlocks nothing: []') from second_session;
select is((api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', id), '{}')).body -> 'achievements_unlocked', '[]'::jsonb,
          '... and finishing it again answers [] as well') from second_session;

-- An abandoned session unlocked nothing: finishing it answers it as abandoned, with [].
create temporary table ivy on commit drop as select pg_temp.started('ivy', interval '10 minutes') as ivy_session;
select api.focus_sessions_abandon(test.token('ivy'), jsonb_build_object('id', ivy_session), '{}') from ivy;
select is((select (r.body -> 'session' ->> 'abandoned') || ' ' || (r.body -> 'achievements_unlocked')::text
           from ivy, api.focus_sessions_finish(test.token('ivy'), jsonb_build_object('id', ivy_session), '{}') r),
          'true []', 'finishing an abandoned session: abandoned, unlocked nothing');

-- The offline record: 201 with first_session, then 200 with the same body.
insert into answers select 'record', api.focus_sessions_create(test.token('bob'), '{}', pg_temp.offline(md5('bob')::uuid, 2));
insert into answers select 'record again', api.focus_sessions_create(test.token('bob'), '{}', pg_temp.offline(md5('bob')::uuid, 2));
insert into answers select 'record again unplanned', api.focus_sessions_create(test.token('bob'), '{}', pg_temp.offline(md5('bob')::uuid, 2) - 'planned_minutes');
select is(pg_temp.codes((select (reply).body from answers where name = 'record')), 'first_session', 'the upload unlocks first_session');
select is((select coalesce((reply).status, 201) || ' then ' || (select (a.reply).status from answers a where a.name = 'record again')
           from answers where name = 'record'), '201 then 200', '201 first, 200 again (the route''s status when none is set: 201)');
select is((select (reply).body::text from answers where name = 'record again'), (select (reply).body::text from answers where name = 'record'),
          'the upload again answers the first answer''s body, achievements_unlocked included');
select is((select (reply).body::text from answers where name = 'record again unplanned'), (select (reply).body::text from answers where name = 'record'),
          '... also when it leaves out planned_minutes');
select is(pg_temp.rewards('bob'), 'first_session 10', 'paid once');
select test.session('bob', test.day_start(1) + interval '5 hours', 30, md5('bob old')::uuid);  -- recorded before answers were kept
select is((select (r.status, r.body - 'session')::text from api.focus_sessions_create(test.token('bob'), '{}', jsonb_build_object(
              'id', md5('bob old')::uuid, 'started_at', api.iso(test.day_start(1) + interval '4 hours 30 minutes'),
              'ended_at', api.iso(test.day_start(1) + interval '5 hours'))) r),
          (select (200, jsonb_build_object('balance', u.balance, 'achievements_unlocked', '[]'::jsonb))::text from app.users u where u.id = test.uid('bob')),
          'a session no answer kept: 200 with the balance now and []');

-- The batch: each item as POST /focus-sessions answers it, a rated one too.
create temporary table batches (n integer primary key, results jsonb) on commit drop;
insert into batches select n, (api.focus_sessions_batch_create(test.token('cat'), '{}', jsonb_build_object('sessions', jsonb_build_array(
    pg_temp.offline(md5('cat1')::uuid, 2) || '{"rating": "good"}', pg_temp.offline(md5('cat2')::uuid, 4))))).body -> 'results'
from generate_series(1, 2) n;
select is((select string_agg((r ->> 'status') || ' ' || pg_temp.codes(r -> 'body'), ', ') from batches, jsonb_array_elements(results) r where n = 1),
          '201 first_session, 201 ', 'the first batch: the first item unlocks first_session');
select is((select string_agg(r ->> 'status', ', ') from batches, jsonb_array_elements(results) r where n = 2), '200, 200', 'the batch again: 200 each');
select is((select (results -> 0 -> 'body')::text from batches where n = 2), (select (results -> 0 -> 'body')::text from batches where n = 1),
          'the rated item again answers its first body (session, balance, tip, achievements_unlocked)');
select is((select (results -> 1 -> 'body')::text from batches where n = 2), (select (results -> 1 -> 'body')::text from batches where n = 1),
          'the other item too ([])');

-- The purchase of the last pet: every_pet; buying it again is 200 already_owned with the same member.
select app.grant_coins(test.uid('dan'), 100000, 'test');
create temporary table last_pet on commit drop as
select max(i.id::text)::uuid as id from app.shop_items i
where i.kind = 'pet' and i.active and not exists (select from app.user_items ui where ui.user_id = test.uid('dan') and ui.item_id = i.id);
select api.shop_purchases_create(test.token('dan'), '{}', jsonb_build_object('item_id', i.id))
from app.shop_items i
where i.kind = 'pet' and i.active and i.id <> (select id from last_pet)
  and not exists (select from app.user_items ui where ui.user_id = test.uid('dan') and ui.item_id = i.id);
insert into answers select 'purchase', api.shop_purchases_create(test.token('dan'), '{}', jsonb_build_object('item_id', id)) from last_pet;
insert into answers select 'purchase again', api.shop_purchases_create(test.token('dan'), '{}', jsonb_build_object('item_id', id)) from last_pet;
select is(pg_temp.codes((select (reply).body from answers where name = 'purchase')), 'every_pet', 'the last pet unlocks every_pet');
select is((select (reply).body -> 'achievements_unlocked' from answers where name = 'purchase again'),
          (select (reply).body -> 'achievements_unlocked' from answers where name = 'purchase'),
          'buying it again answers the same achievements_unlocked');
select is((select (reply).status || ' ' || ((reply).body ->> 'already_owned') || ' ' || ((reply).body ->> 'balance') from answers where name = 'purchase again'),
          '200 true ' || ((select (reply).body ->> 'balance' from answers where name = 'purchase')),
          '... as the documented repeat: 200, already_owned, nothing charged');
select is(pg_temp.codes((api.shop_purchases_create(test.token('dan'), '{}', jsonb_build_object('item_id', max(i.id::text)::uuid))).body), '',
          'an item bought before it unlocked nothing: []')
from app.shop_items i where i.kind = 'pet' and i.id <> (select id from last_pet)
  and exists (select from app.user_items ui where ui.user_id = test.uid('dan') and ui.item_id = i.id);

-- Accepting a request: first_friend for both; accepting again answers the first answer.
select api.friend_requests_create(test.token('eve'), '{}', '{"email": "fay@example.com"}');
create temporary table eve_fay on commit drop as select f.id from app.friendships f where f.requested_by = test.uid('eve');
insert into answers select 'accept', api.friend_requests_accept(test.token('fay'), jsonb_build_object('id', id), '{}') from eve_fay;
insert into answers select 'accept again', api.friend_requests_accept(test.token('fay'), jsonb_build_object('id', id), '{}') from eve_fay;
select is(pg_temp.codes((select (reply).body from answers where name = 'accept')), 'first_friend', 'fay accepts: first_friend');
select is((select (reply).body::text from answers where name = 'accept again'), (select (reply).body::text from answers where name = 'accept'),
          'accepting again answers the first answer''s body, achievements_unlocked included');
select is((select string_agg(u.name || ' ' || coalesce(ua.unlocked_by, '-'), ', ' order by u.name)
           from unnest(array['eve', 'fay']) u(name) join app.user_achievements ua on ua.user_id = test.uid(u.name)),
          'eve -, fay friendship:' || (select id from eve_fay),
          'eve''s first_friend came from fay''s write: hers to hear as an event, no answer of hers names it');
select is(test.error_of($$ select api.friend_requests_create(test.token('fay'), '{}', '{"email": "eve@example.com"}') $$),
          'PT409 already_friends', 'fay, who accepted with the accept route, asking eve is still already_friends');

-- Asking back: accepted, first_friend; asking again answers the same.
select api.friend_requests_create(test.token('gus'), '{}', '{"email": "hal@example.com"}');
insert into answers select 'ask back', api.friend_requests_create(test.token('hal'), '{}', '{"email": "gus@example.com"}');
insert into answers select 'ask back again', api.friend_requests_create(test.token('hal'), '{}', '{"email": "gus@example.com"}');
select is(pg_temp.codes((select (reply).body from answers where name = 'ask back')) || ' ' || ((select (reply).body ->> 'auto_accepted' from answers where name = 'ask back')),
          'first_friend true', 'hal asks gus back: accepted, first_friend');
select is((select to_jsonb(reply)::text from answers where name = 'ask back again'), (select to_jsonb(reply)::text from answers where name = 'ask back'),
          'asking again answers the same status and body, achievements_unlocked included');
select is(test.error_of($$ select api.friend_requests_create(test.token('gus'), '{}', '{"email": "hal@example.com"}') $$),
          'PT409 already_friends', 'gus, whose request it was, asking hal is already_friends');
select is(pg_temp.rewards('hal'), 'first_friend 10', 'paid once');

-- A gift's accept: kim owns every pet but the cheapest, which jay gives her; accepting it
-- unlocks every_pet (the receiver's acting device hears no event of it: the answer is how it
-- learns), and accepting again answers the same body.
select api.friend_requests_create(test.token('jay'), '{}', '{"email": "kim@example.com"}');
select api.friend_requests_create(test.token('kim'), '{}', '{"email": "jay@example.com"}');
select app.grant_coins(test.uid(name), 100000, 'test') from unnest(array['jay', 'kim']) as name;
create temporary table kim_pet on commit drop as
select i.id from app.shop_items i
where i.kind = 'pet' and i.active and not exists (select from app.user_items ui where ui.user_id = test.uid('kim') and ui.item_id = i.id)
order by i.price, i.id limit 1;
select api.shop_purchases_create(test.token('kim'), '{}', jsonb_build_object('item_id', i.id))
from app.shop_items i
where i.kind = 'pet' and i.active and i.id <> (select id from kim_pet)
  and not exists (select from app.user_items ui where ui.user_id = test.uid('kim') and ui.item_id = i.id);
create temporary table kim_gifts on commit drop as
select ((api.gifts_create(test.token('jay'), '{}', jsonb_build_object('to', test.uid('kim'), 'item_id', id))).body -> 'gift' ->> 'id')::uuid as pet,
       ((api.gifts_create(test.token('jay'), '{}', jsonb_build_object('to', test.uid('kim'), 'coins', 5))).body -> 'gift' ->> 'id')::uuid as coins
from kim_pet;
create temporary table kim_before on commit drop as select u.balance from app.users u where u.id = test.uid('kim');
insert into answers select 'gift accept', api.gifts_accept(test.token('kim'), jsonb_build_object('id', pet), '{}') from kim_gifts;
insert into answers select 'gift accept again', api.gifts_accept(test.token('kim'), jsonb_build_object('id', pet), '{}') from kim_gifts;
select is(pg_temp.codes((select (reply).body from answers where name = 'gift accept')) || ' ' || ((select (reply).body -> 'gift' ->> 'status' from answers where name = 'gift accept')),
          'every_pet accepted', 'kim accepts the last pet as a gift: every_pet in the answer');
select is(((select (reply).body ->> 'balance' from answers where name = 'gift accept'))::integer,
          (select balance + 100 from kim_before), '... and the balance counts its reward (100)');
select is(((select (reply).body ->> 'balance' from answers where name = 'gift accept'))::integer,
          (select u.balance from app.users u where u.id = test.uid('kim')), '... the balance she has');
select is((select (reply).body::text from answers where name = 'gift accept again'), (select (reply).body::text from answers where name = 'gift accept'),
          'accepting again answers the first answer''s body, achievements_unlocked included');
select is((select unlocked_by from app.user_achievements where user_id = test.uid('kim') and achievement_code = 'every_pet'),
          'gift:' || (select pet from kim_gifts), 'the unlock names the gift');
select is(pg_temp.rewards('kim'), 'first_friend 10, every_pet 100', 'paid once');
select is((select (api.gifts_accept(test.token('kim'), jsonb_build_object('id', coins), '{}')).body -> 'achievements_unlocked' from kim_gifts),
          '[]'::jsonb, 'a coin gift unlocks nothing: []');
select is((select (api.gifts_accept(test.token('kim'), jsonb_build_object('id', coins), '{}')).body -> 'achievements_unlocked' from kim_gifts),
          '[]'::jsonb, '... and accepting it again answers [] as well');

-- The mark holds what it names.
select throws_ok($$ update app.user_achievements set unlocked_by = 'room:' || gen_random_uuid() where user_id = test.uid('ann') $$,
                 '23514', null, 'unlocked_by names a session, an item, a friendship or a gift');

select * from finish();
rollback;
