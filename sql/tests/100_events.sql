-- Events: each change writes exactly its events, for exactly the users who should hear of it,
-- in the change's own transaction (app.events, sql/migrations/0007_events.sql).
begin;
select plan(66);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user('ann');
select test.new_user('bob');
select test.new_user('cat');
select test.new_user('dan');
select is(test.new_events(), '{}', 'registering tells nobody anything');

-- Requests: the other side hears; the one who acted hears nothing.
create temp table ids as
select (api.friend_requests_create(test.token('ann'), '{}', '{"email": "bob@example.com"}')).body -> 'request' ->> 'id' as ann_bob;
select is(test.new_events(), '{"bob friend_request.received ann"}', 'ann asks bob: bob hears who asked');
select is((select e.payload ->> 'request_id' from app.events e where e.created_at = now() order by e.id desc limit 1),
          (select ann_bob from ids), '... with the request''s id');
select api.friend_requests_accept(test.token('bob'), jsonb_build_object('id', (select ann_bob from ids)), '{}');
select is(test.new_events(), '{"ann friend_request.accepted bob"}', 'bob accepts: ann hears it, bob nothing');

alter table ids add column cat_ann text, add column dan_ann text;
update ids set cat_ann = (api.friend_requests_create(test.token('cat'), '{}', '{"email": "ann@example.com"}')).body -> 'request' ->> 'id';
select is(test.new_events(), '{"ann friend_request.received cat"}', 'cat asks ann');
select api.friend_requests_decline(test.token('ann'), jsonb_build_object('id', (select cat_ann from ids)), '{}');
select is(test.new_events(), '{"cat friend_request.ended"}', 'ann declines: cat hears the request ended, ann nothing');
select is((select e.payload from app.events e where e.type = 'friend_request.ended' and e.created_at = now()),
          jsonb_build_object('request_id', (select cat_ann from ids)), '... and only which request: not that it was declined');
update ids set dan_ann = (api.friend_requests_create(test.token('dan'), '{}', '{"email": "ann@example.com"}')).body -> 'request' ->> 'id';
select is(test.new_events(), '{"ann friend_request.received dan"}', 'dan asks ann');
select api.friend_requests_delete(test.token('dan'), jsonb_build_object('id', (select dan_ann from ids)), '{}');
select is(test.new_events(), '{"ann friend_request.ended"}', 'dan cancels: ann hears the request ended, dan nothing');

select api.friend_requests_create(test.token('cat'), '{}', '{"email": "bob@example.com"}');
select is(test.new_events(), '{"bob friend_request.received cat"}', 'cat asks bob');
select is((api.friend_requests_create(test.token('bob'), '{}', '{"email": "cat@example.com"}')).body -> 'auto_accepted', 'true',
          'bob asks cat back: accepted');
select is(test.new_events(), '{"cat friend_request.accepted bob"}', '... and only cat hears it, as an acceptance');

-- Refused transitions write nothing.
select is(test.error_of($$ select api.friend_requests_create(test.token('ann'), '{}', '{"email": "bob@example.com"}') $$),
          'PT409 already_friends', 'asking a friend again is refused');
select is(test.error_of($$ select api.friend_requests_accept(test.token('ann'), jsonb_build_object('id', (select cat_ann from ids)), '{}') $$),
          'PT404 friend_request_not_found', 'accepting an ended request is refused');
select is(test.new_events(), '{}', '... and neither wrote an event');

-- What friends see of bob (friends: ann and cat; dan is not one).
select api.me_update(test.token('bob'), '{}', '{"display_name": "Robert"}');
select is(test.new_events(), '{"ann friend.updated bob","cat friend.updated bob"}', 'bob''s new name: each friend hears, once');
select api.me_update(test.token('bob'), '{}', '{"display_name": "Robert", "settings": {"show_tip_on_timer": false}}');
select is(test.new_events(), '{}', 'the same name and a setting only bob sees: nobody hears');
select api.me_update(test.token('bob'), '{}', '{"bio": "Gardener of small habits"}');
select is(test.new_events(), '{"ann friend.updated bob","cat friend.updated bob"}', 'bob''s bio: his friends hear, once');
select api.me_update(test.token('bob'), '{}', '{"bio": "Gardener of small habits"}');
select is(test.new_events(), '{}', 'the same bio again: nobody hears');
select api.me_update(test.token('bob'), '{}', '{"bio": null}');
select is(test.new_events(), '{"ann friend.updated bob","cat friend.updated bob"}', 'bob''s bio cleared: they hear');
select api.me_update(test.token('dan'), '{}', '{"display_name": "Daniel"}');
select is(test.new_events(), '{}', 'dan has no friends: renaming tells nobody');

select is(app.grant_coins(test.uid('bob'), 500, 'test'), 500, 'support grants bob 500 coins');
select is(test.new_events(), '{"bob balance.changed 500"}', 'a grant: bob hears his new balance, his friends nothing');
select is((api.shop_purchases_create(test.token('bob'), '{}', jsonb_build_object('item_id', test.item('Mochi the Cat')))).body -> 'balance',
          '380', 'bob buys Mochi the Cat for 120');
select is(test.new_events(), '{"bob balance.changed 380"}', 'a purchase: bob hears his balance, nobody else anything');
select api.shop_purchases_create(test.token('bob'), '{}', jsonb_build_object('item_id', test.item('Mochi the Cat')));
select is(test.new_events(), '{}', 'buying it again charges nothing and tells nobody');
select is(test.error_of($$ select api.shop_purchases_create(test.token('dan'), '{}', jsonb_build_object('item_id', test.item('Treehouse'))) $$),
          'PT409 insufficient_funds', 'dan cannot afford the Treehouse');
select is(test.new_events(), '{}', '... and the refused purchase tells nobody');
select api.me_selected_update(test.token('bob'), '{"kind": "pet"}', jsonb_build_object('item_id', test.item('Mochi the Cat')));
select is(test.new_events(), '{"ann friend.updated bob","cat friend.updated bob"}', 'bob shows Mochi: his friends hear');
select api.me_selected_update(test.token('bob'), '{"kind": "pet"}', jsonb_build_object('item_id', test.item('Mochi the Cat')));
select is(test.new_events(), '{}', 'selecting the pet he already shows tells nobody');

select api.me_avatar_update(test.token('bob'), '{}', '\x89504e470d0a1a0a0000'::bytea);
select is(test.new_events(), '{"ann friend.updated bob","cat friend.updated bob"}', 'bob''s first avatar: his friends hear');
select api.me_avatar_update(test.token('bob'), '{}', '\xffd8ff00'::bytea);
select is(test.new_events(), '{"ann friend.updated bob","cat friend.updated bob"}', 'a new avatar: they hear again');
select api.me_avatar_delete(test.token('bob'), '{}', '{}');
select is(test.new_events(), '{"ann friend.updated bob","cat friend.updated bob"}', 'the avatar removed: they hear');
select api.me_avatar_delete(test.token('bob'), '{}', '{}');
select is(test.new_events(), '{}', 'removing no avatar tells nobody');

-- Sessions: friends show today's minutes; the earner hears the balance.
select api.focus_sessions_create(test.token('bob'), '{}', jsonb_build_object('id', gen_random_uuid(),
    'started_at', api.iso(test.day_start() - interval '30 minutes'), 'ended_at', api.iso(test.day_start())));
select is(test.new_events(), '{"ann friend.updated bob","bob balance.changed 410","cat friend.updated bob"}',
          'a 30-minute session ending today: friends hear of the minutes, bob of his 30 coins');
select api.focus_sessions_create(test.token('bob'), '{}', jsonb_build_object('id', gen_random_uuid(),
    'started_at', api.iso(test.day_start() - interval '2 hours'), 'ended_at', api.iso(test.day_start() - interval '1 hour')));
select is(test.new_events(), '{"bob balance.changed 470"}', 'a session that ended yesterday: only bob hears, of his coins');
select api.focus_sessions_create(test.token('bob'), '{}', jsonb_build_object('id', gen_random_uuid(),
    'started_at', api.iso(test.day_start() - interval '3 hours'), 'ended_at', api.iso(test.day_start() - interval '2 hours 55 minutes')));
select is(test.new_events(), '{}', 'a 5-minute session yesterday earns nothing and changes nothing friends see');
create temp table live as select (api.focus_sessions_start(test.token('bob'), '{}', '{"planned_minutes": 25}')).body #>> '{session,id}' as id;
select is(test.new_events(), '{}', 'starting a live session tells nobody');
select api.focus_sessions_finish(test.token('bob'), jsonb_build_object('id', (select id from live)), '{}');
select is(test.new_events(), '{}', 'finishing it at once: no minutes, no coins, nobody told');
select api.focus_sessions_rate(test.token('bob'), jsonb_build_object('id', (select id from live)), '{"rating": "good"}');
select is(test.new_events(), '{}', 'rating a session tells nobody');

-- Removing a friend.
select api.friends_delete(test.token('ann'), jsonb_build_object('user_id', test.uid('bob')), '{}');
select is(test.new_events(), '{"bob friend.removed ann"}', 'ann removes bob: bob hears who, ann nothing');
select api.me_update(test.token('bob'), '{}', '{"display_name": "Bobby"}');
select is(test.new_events(), '{"cat friend.updated bob"}', 'bob renamed again: only cat, his one friend left, hears');

-- A user's two kinds of change, each with its own binding (0101): the name or bio tells friends
-- (users_events), the balance tells the user (users_events_balance), and neither body compares.
select trigger_is('app', 'users', 'users_events_balance', 'app', 'users_events_balance',
                  'a new balance is told by a trigger of its own');
select ok((select pg_get_triggerdef(t.oid) ~ 'WHEN \(\(new\.balance IS DISTINCT FROM old\.balance\)\)' from pg_trigger t
           where t.tgrelid = 'app.users'::regclass and t.tgname = 'users_events_balance')
           and (select pg_get_triggerdef(t.oid) !~ 'balance' from pg_trigger t
                where t.tgrelid = 'app.users'::regclass and t.tgname = 'users_events'),
          '... bound to the balance alone, and users_events no longer to it');
create temp table before_both as select coalesce(max(e.id), 0) as id from app.events e;
update app.users set display_name = 'Bob', balance = balance + 1 where id = test.uid('bob');
select is(test.new_events(),
          array['bob balance.changed ' || (select u.balance from app.users u where u.id = test.uid('bob')), 'cat friend.updated bob'],
          'one update of the name and the balance: his friend hears the name and bob the balance, each once');
select is((select array_agg(e.type::text order by e.id) from app.events e
           where e.id > (select b.id from before_both b) and e.created_at = now()),
          '{friend.updated,balance.changed}', '... the friend''s first, in the order one trigger wrote them');

-- A rolled-back change writes nothing.
select is(test.error_of($$ do $do$ begin
    perform api.friend_requests_create(test.token('ann'), '{}', '{"email": "dan@example.com"}');
    perform app.grant_coins(test.uid('ann'), 10, 'test');
    raise exception 'undo';
end $do$ $$), 'P0001', 'a request and a grant, then the transaction (here a subtransaction) rolls back');
select is(test.new_events(), '{}', '... and no event of them is left');

-- The catalog and the tips: one broadcast row per statement that changed something.
update app.shop_items set description = 'A cat of naps.' where name = 'Mochi the Cat';
select is(test.new_events(), '{"* catalog.changed"}', 'an item changed: one catalog.changed for everyone');
select is((select e.payload from app.events e where e.type = 'catalog.changed' order by e.id desc limit 1),
          (select jsonb_build_object('version', v.version) from app.catalog_version v), '... with the new catalog version');
update app.shop_items set price = price + 1 where kind = 'pet' and not is_starter;
select is(test.new_events(), '{"* catalog.changed"}', 'seven items in one statement: still one event');
insert into app.shop_items as i (id, kind, name, description, price, image)
values (md5('focus-island:item:pet:mochi-cat')::uuid, 'pet', 'Mochi the Cat', 'A cat of naps.', 121, 'pet/mochi-cat.png')
on conflict (id) do update set description = excluded.description, updated_at = now()
where i.description is distinct from excluded.description;
select is(test.new_events(), '{}', 'an idempotent re-seed (an upsert that changes no row) writes nothing');
insert into app.shop_items as i (id, kind, name, description, price, image)
values (md5('focus-island:item:pet:mochi-cat')::uuid, 'pet', 'Mochi the Cat', 'A cat of long naps.', 121, 'pet/mochi-cat.png'),
       (gen_random_uuid(), 'pet', 'Newt', 'A new pet.', 10, 'pet/newt.png')
on conflict (id) do update set description = excluded.description, updated_at = now()
where i.description is distinct from excluded.description;
select is(test.new_events(), '{"* catalog.changed"}', 'a re-seed that inserts one item and changes another: one event');
update app.mindfulness_tips set content = content || ' Breathe.' where title = 'Box breathing';
select is(test.new_events(), '{"* tips.changed"}', 'a tip changed: one tips.changed for everyone');
select is((select e.payload from app.events e where e.type = 'tips.changed' order by e.id desc limit 1),
          (select jsonb_build_object('version', v.version) from app.tips_version v), '... with the new tips version');
update app.mindfulness_tips set active = true where active;
select is(test.new_events(), '{"* tips.changed"}', 'an update statement that touches rows announces (its version moved)');
update app.mindfulness_tips set active = true where false;
select is(test.new_events(), '{}', 'a statement that touches no tip writes nothing');

-- Payloads are small and carry ids, versions and one's own balance only.
select is_empty($$ select e.id from app.events e, jsonb_object_keys(e.payload) k
                   where e.created_at = now() and k not in ('request_id', 'user_id', 'balance', 'version') $$,
                'payloads hold request_id, user_id, balance or version, nothing else');

-- Append-only: rows change by no one, and go only by app.prune_events (sql/tests/100_events_list.sql).
select is(test.error_of($$ update app.events set payload = '{}' $$), '23001', 'no event can be changed');
select is(test.error_of($$ delete from app.events where created_at = now() $$), '23001', 'no event can be deleted by hand');
select is(test.error_of($$ truncate app.events $$), '23001', 'nor truncated');

-- The doorbell: pgTAP cannot read notifications (they are sent at commit, and a test file
-- rolls back), so this checks the trigger that sends them; the Swift tests receive them.
-- Personal events ring through api.events_ring (sql/tests/100_events_commit_order.sql).
select trigger_is('app', 'events', 'events_notify', 'app', 'events_notify',
                  'every inserted broadcast event calls pg_notify(''focus_events'', ''*:<id>'')');
select ok((select pg_get_triggerdef(t.oid) ~ 'WHEN \(\(new\.user_id IS NULL\)\)' from pg_trigger t
           where t.tgrelid = 'app.events'::regclass and t.tgname = 'events_notify'),
          '... broadcasts only: a NOTIFY serialises the commits of all notifying transactions');
select ok((select p.prosrc ~ 'pg_notify\(''focus_events'', coalesce\(new\.user_id::text, ''\*''\) \|\| '':'' \|\| new\.id\)'
           from pg_proc p where p.oid = 'app.events_notify'::regproc), '... whose payload is only the user id (or *) and the event id');
select is((select pg_get_expr(d.adbin, d.adrelid) from pg_attrdef d
           where d.adrelid = 'app.events'::regclass and d.adnum = (select a.attnum from pg_attribute a
                                                                  where a.attrelid = 'app.events'::regclass and a.attname = 'id')),
          'app.next_event_id()', 'ids come from the writing transaction''s id (app.next_event_id), with no lock');
select is((select count(*)::integer from pg_trigger t where t.tgrelid = 'app.events'::regclass and t.tgname = 'events_commit_order'), 0,
          'and no commit-order lock (sql/tests/100_events_commit_order.sql checks the order)');

select * from finish();
rollback;
