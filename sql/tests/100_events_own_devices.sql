-- Events to one's own other devices: what a person does with one token reaches the events of
-- their other live tokens, never the acting token's own (app.events.origin_token,
-- sql/app/025_own_events.sql); a person with one device gets no such rows at all.
begin;
select plan(30);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user('ada');
select test.new_user('bo');
select test.new_user('solo');
select app.grant_coins(test.uid('ada'), 500, 'test');
-- Ada's second device: her iPad signs in; test.token('ada') is her phone.
create temp table ipad as
select (api.auth_login(null, '{}', '{"email": "ada@example.com", "password": "correct horse"}')).body ->> 'token' as token;
create temp table cursor as select api.newest_event_id() as id;
select test.new_events();

-- Ada's events as a token sees them after the cursor: the types, in id order.
create function pg_temp.seen(token text) returns text[] language sql as $$
    select coalesce(array_agg(e ->> 'type' order by (e ->> 'id')::bigint), '{}')
    from jsonb_array_elements((api.events_list(seen.token, jsonb_build_object('after', (select c.id::text from cursor c)), '{}')).body -> 'events') e
$$;
create function pg_temp.advance() returns void language sql as $$
    update cursor set id = api.newest_event_id();
$$;

-- Sessions.
create temp table live as
select ((api.focus_sessions_start(test.token('ada'), '{}', '{"planned_minutes": 25}')).body #>> '{session,id}') as id;
select is(test.new_events(), '{"ada session.started"}', 'the phone starts a session: one event for Ada');
select is(pg_temp.seen((select token from ipad)), '{session.started}', 'the iPad''s events have it');
select is(pg_temp.seen(test.token('ada')), '{}', 'the phone''s own do not');
select is((select e.payload from app.events e where e.type = 'session.started' order by e.id desc limit 1),
          jsonb_build_object('session_id', (select id from live)), '... and it says which session, nothing more');
select is((select e.origin_token from app.events e where e.type = 'session.started' order by e.id desc limit 1),
          (select t.id from app.auth_tokens t where t.digest = sha256(convert_to(test.token('ada'), 'UTF8'))),
          '... marked with the phone''s token');
select pg_temp.advance();
select api.focus_sessions_abandon((select token from ipad), jsonb_build_object('id', (select id from live)), '{}');
select is(test.new_events(), '{"ada session.abandoned"}', 'the iPad abandons it');
select is(pg_temp.seen(test.token('ada')), '{session.abandoned}', 'the phone hears it');
select is(pg_temp.seen((select token from ipad)), '{}', 'the iPad does not');
update app.focus_sessions s
set started_at = now() - interval '2 hours', ended_at = now() - interval '110 minutes',
    occupies = tstzrange(now() - interval '2 hours', now() - interval '110 minutes')
where s.id = (select id::uuid from live);
select is(test.new_events(), '{}', 'moving an ended session tells nobody');
select pg_temp.advance();
update live set id = (api.focus_sessions_start(test.token('ada'), '{}', '{"planned_minutes": 25}')).body #>> '{session,id}';
update app.focus_sessions s set started_at = now() - interval '30 minutes', occupies = tstzrange(now() - interval '30 minutes', null)
where s.id = (select id::uuid from live);
select test.new_events();
select pg_temp.advance();
select api.focus_sessions_finish(test.token('ada'), jsonb_build_object('id', (select id from live)), '{}');
select is(test.new_events(), '{"ada balance.changed 525","ada session.finished"}',
          'the phone finishes one: session.finished beside balance.changed');
select is(pg_temp.seen((select token from ipad)), '{session.finished,balance.changed}', 'the iPad hears both');
select is(pg_temp.seen(test.token('ada')), '{balance.changed}', 'the phone hears only the balance, as every device does');

-- Shop and selections.
select pg_temp.advance();
select api.shop_purchases_create(test.token('ada'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')));
select is(test.new_events() @> '{"ada item.acquired"}', true, 'a purchase: item.acquired');
select is((select e.payload from app.events e where e.type = 'item.acquired' order by e.id desc limit 1),
          jsonb_build_object('item_id', test.item('Pip the Fox')), '... naming the item');
select api.me_selected_update(test.token('ada'), '{"kind": "pet"}', jsonb_build_object('item_id', test.item('Pip the Fox')));
select is(test.new_events() @> '{"ada selection.changed"}', true, 'a selection: selection.changed');
select is(pg_temp.seen((select token from ipad)) @> '{item.acquired,selection.changed}', true, 'the iPad hears both');
select is(pg_temp.seen(test.token('ada')) && '{item.acquired,selection.changed}', false, 'the phone neither');

-- Profile and settings.
select api.me_update(test.token('ada'), '{}', '{"display_name": "Ada L"}');
select is(test.new_events(), '{"ada profile.changed"}', 'a new name: profile.changed (Ada has no friends to tell)');
select api.me_update((select token from ipad), '{}', '{"settings": {"time_zone": "Europe/Paris"}}');
select is(test.new_events(), '{"ada settings.changed"}', 'a new time zone: settings.changed');
select api.me_update((select token from ipad), '{}', '{"settings": {"locale": "es"}}');
select is(test.new_events(), '{"ada settings.changed"}', 'a new locale (the language of push and mail): settings.changed');
select api.me_update(test.token('ada'), '{}', '{"display_name": "Ada L"}');
select is(test.new_events(), '{}', 'the same name again tells nobody');

-- Blocks.
select api.users_block_create(test.token('ada'), jsonb_build_object('id', test.uid('bo')), '{}');
select is(test.new_events(), '{"ada block.added bo"}', 'a block: block.added with whom, for Ada only');
select api.users_block_delete(test.token('ada'), jsonb_build_object('id', test.uid('bo')), '{}');
select is(test.new_events(), '{"ada block.removed bo"}', 'an unblock: block.removed');

-- One device: nothing is written.
select api.focus_sessions_start(test.token('solo'), '{}', '{"planned_minutes": 25}');
select api.me_update(test.token('solo'), '{}', '{"display_name": "Solo Two"}');
select is(test.new_events(), '{}', 'a person signed in on one device only writes nothing');

-- A change nobody's token made (a DBA's) reaches every device.
select set_config('focus.acting_token', '', true);
select is(app.acting_token(), null, 'no acting token outside a request');
update app.users u set show_tip_on_timer = false where u.id = test.uid('ada');
select is(test.new_events(), '{"ada settings.changed"}', 'a DBA changes a setting');
select is((select e.origin_token from app.events e order by e.id desc limit 1), null, '... with no origin');
select pg_temp.advance();
update app.users u set time_zone = 'UTC' where u.id = test.uid('ada');
select is(pg_temp.seen(test.token('ada')) = pg_temp.seen((select token from ipad))
          and pg_temp.seen(test.token('ada')) = '{settings.changed}', true, '... and both devices hear it');
select test.new_events();

-- A refused change writes nothing.
select is(test.error_of($$ select api.users_block_create(test.token('ada'), jsonb_build_object('id', test.uid('ada')), '{}') $$) like 'PT%',
          true, 'a refused block');
select is(test.new_events(), '{}', '... writes no event');

select * from finish();
rollback;
