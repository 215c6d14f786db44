-- Achievements: a finished session unlocks first_session once, returned in the finish's answer,
-- paid through the ledger and heard by the person and their friends; GET /me/achievements shows
-- the progress; a friend sees the unlocked ones, a stranger or a blocked account gets 404;
-- accepting a friend, buying the last pet, a seven-day streak and a completed room unlock
-- theirs. Time passes by moving sessions back (the file is one transaction, so now() stands still).
begin;
select plan(34);
select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan', 'eve']) as name;
create function pg_temp.codes(body jsonb) returns text language sql as $$
    select coalesce(string_agg(a.value ->> 'code', ',' order by a.n), '')
    from jsonb_array_elements(body -> 'achievements_unlocked') with ordinality a (value, n)
$$;
create function pg_temp.codes(reply api.reply) returns text language sql as $$ select pg_temp.codes(reply.body) $$;
create function pg_temp.unlocked(name text) returns text language sql as $$
    select coalesce(string_agg(ua.achievement_code, ',' order by a.sort_order), '')
    from app.user_achievements ua join app.achievements a on a.code = ua.achievement_code
    where ua.user_id = test.uid(unlocked.name)
$$;
create function pg_temp.rewards(name text) returns text language sql as $$
    select coalesce(string_agg(c.achievement_code || ' ' || c.amount, ', ' order by c.id), '')
    from app.coin_ledger c where c.user_id = test.uid(name) and c.entry = 'reward'
$$;
create function pg_temp.achievement_events() returns text[] language sql as $$
    select coalesce(array_agg(e order by e), '{}') from unnest(test.new_events()) e where e ~ ' achievement\.'
$$;
-- A live session of `name` started `ago` before now with a 25-minute plan, finished now.
create function pg_temp.finish_live(name text, ago interval) returns api.reply language plpgsql as $$
declare
    v_id uuid := ((api.focus_sessions_start(test.token(name), '{}', '{"planned_minutes": 25}')).body -> 'session' ->> 'id')::uuid;
begin
    update app.focus_sessions s
    set started_at = s.started_at - ago, occupies = tstzrange(lower(s.occupies) - ago, upper(s.occupies) - ago)
    where s.id = v_id;
    return api.focus_sessions_finish(test.token(name), jsonb_build_object('id', v_id), '{}');
end
$$;

-- The catalogue: its constraints hold what the kinds mean.
select is((select string_agg(code, ',' order by sort_order) from app.achievements where active),
          'first_session,ten_hours,week_streak,first_friend,first_room,every_pet', 'the shipped catalogue');
select throws_ok($$ insert into app.achievements (code, name, description, kind, threshold) values ('pets', 'P', 'D', 'every_pet', 3) $$,
                 '23514', null, 'every_pet takes no threshold');
select throws_ok($$ insert into app.achievements (code, name, description, kind) values ('Bad Code', 'P', 'D', 'friends') $$,
                 '23514', null, 'a code is lower-case letters, digits and _ (and a count needs its threshold)');

-- ann and bob are friends; accepting unlocks first_friend for both, in the accepter's answer.
select api.friend_requests_create(test.token('ann'), '{}', '{"email": "bob@example.com"}');
select test.new_events();
select is(pg_temp.codes(api.friend_requests_accept(test.token('bob'),
              jsonb_build_object('id', (select f.id from app.friendships f where f.requested_by = test.uid('ann'))), '{}')),
          'first_friend', 'bob accepts: his answer says first_friend unlocked');
select is(pg_temp.unlocked('ann') || ' / ' || pg_temp.unlocked('bob'), 'first_friend / first_friend', 'both unlocked it');
select is(pg_temp.achievement_events(),
          '{"ann achievement.unlocked ann","ann achievement.unlocked bob","bob achievement.unlocked ann"}',
          'each hears the other''s (friends by then); ann''s devices hear hers; bob''s one device acted: its answer says it');

-- ann signs in on a second device: her own events reach it, not the device that acts.
select api.auth_login(null, '{}', '{"email": "ann@example.com", "password": "correct horse"}');

-- A first session: unlocked in the finish's answer, paid once, heard by ann and her friend bob.
create temporary table before_first on commit drop as select balance from app.users where id = test.uid('ann');
create temporary table first_finish on commit drop as select r.* from pg_temp.finish_live('ann', interval '3 hours') r;
select is(pg_temp.codes((select body from first_finish)), 'first_session', 'the finish answers first_session unlocked');
select is((select (body -> 'achievements_unlocked' -> 0) - 'unlocked_at' from first_finish),
          '{"code": "first_session", "name": "First focus", "description": "Finish your first focus session.", "reward_coins": 10}'::jsonb,
          '... as an Achievement');
select is((select body -> 'achievements_unlocked' -> 0 ->> 'unlocked_at' from first_finish), api.iso(now()), '... unlocked now');
select is((select (body ->> 'balance')::integer - (select balance from before_first) from first_finish), 35,
          'the balance answered counts the 25 coins earned and the 10 of the reward');
select is(pg_temp.rewards('ann'), 'first_friend 10, first_session 10', 'each reward is one ledger row');
select is(pg_temp.achievement_events(), '{"ann achievement.unlocked ann","bob achievement.unlocked ann"}',
          'ann''s other device and her friend bob hear it; nobody else');
select is((select e.origin_token from app.events e where e.type = 'achievement.unlocked' and e.user_id = test.uid('ann') order by e.id desc limit 1),
          (select t.id from app.auth_tokens t where t.digest = sha256(convert_to(test.token('ann'), 'UTF8'))),
          'marked with the acting token, whose stream skips it');
select is((select e.payload from app.events e where e.type = 'achievement.unlocked' and e.user_id = test.uid('bob') order by e.id desc limit 1),
          jsonb_build_object('user_id', test.uid('ann'), 'code', 'first_session'), 'the event names the person and the code');

-- Again: nothing unlocked twice, nothing paid twice.
select pg_temp.finish_live('eve', interval '30 minutes');  -- another user's grant in the same transaction
select is(pg_temp.codes(pg_temp.finish_live('ann', interval '6 hours')), '', 'a second session unlocks nothing: []');
select is(pg_temp.rewards('ann'), 'first_friend 10, first_session 10', 'and pays nothing');
select is(app.grant_achievement(test.uid('ann'), 'first_session'), false, 'granting a held one again does nothing');
select is(app.check_achievements(test.uid('ann'), array['sessions_completed', 'friends']), 0, 'checking again grants nothing');

-- GET /me/achievements: every active one, with progress.
select is((select jsonb_agg(a - 'unlocked_at' - 'name' - 'description' - 'reward_coins')
           from jsonb_array_elements((api.me_achievements_list(test.token('ann'), '{}', null)).body -> 'achievements') a),
          ('[{"code": "first_session", "current": 2, "target": 1}, {"code": "ten_hours", "current": 50, "target": 600},'
           ' {"code": "week_streak", "current": ' || (select longest_days from app.user_streak(test.uid('ann'))) || ', "target": 7}, {"code": "first_friend", "current": 1, "target": 1},'
           ' {"code": "first_room", "current": 0, "target": 1}, {"code": "every_pet", "current": '
           || (select count(*) from app.user_items ui join app.shop_items i on i.id = ui.item_id
               where ui.user_id = test.uid('ann') and i.kind = 'pet')
           || ', "target": ' || (select count(*) from app.shop_items where kind = 'pet' and active) || '}]')::jsonb,
          'GET /me/achievements: current and target of each, in catalogue order');
select is((select string_agg(coalesce(a ->> 'unlocked_at', '-'), ',')
           from jsonb_array_elements((api.me_achievements_list(test.token('ann'), '{}', null)).body -> 'achievements') a),
          api.iso(now()) || ',-,-,' || api.iso(now()) || ',-,-', 'unlocked_at of the unlocked ones, null for the rest');

-- The export lists them.
select is((select jsonb_agg(a ->> 'code') from jsonb_array_elements((api.me_export_get(test.token('ann'), '{}', '{}')).body -> 'achievements') a),
          '["first_friend", "first_session"]'::jsonb, 'GET /me/export lists the unlocked ones, oldest first');

-- Friends see each other's; anyone else is 404 user_not_found.
select is((select string_agg(a ->> 'code', ',') from jsonb_array_elements(
              (api.users_achievements_list(test.token('bob'), jsonb_build_object('id', test.uid('ann')), null)).body -> 'achievements') a),
          'first_session,first_friend', 'bob sees ann''s unlocked achievements');
select is(test.error_of(format($$ select api.users_achievements_list(%L, jsonb_build_object('id', %L), null) $$,
                               test.token('cat'), test.uid('ann'))),
          'PT404 user_not_found', 'a stranger gets 404');
select is(test.error_of(format($$ select api.users_achievements_list(%L, jsonb_build_object('id', %L), null) $$,
                               test.token('cat'), gen_random_uuid())),
          'PT404 user_not_found', 'an unknown id is the same 404');
select is(test.error_of(format($$ select api.users_achievements_list(%L, '{"id": "ann"}', null) $$, test.token('cat'))),
          'PT400 invalid_field', 'an id that is not a UUID is invalid_field');

-- A seven-day streak (dan's local days, UTC): unlocked by the session that makes it.
select test.session('dan', test.day_start(d), 10) from generate_series(6, 1, -1) d;
select is(pg_temp.unlocked('dan'), 'first_session', 'six days: no streak achievement yet');
select test.new_events();
select test.session('dan', test.day_start(0), 10);
select is(pg_temp.unlocked('dan'), 'first_session,week_streak', 'the seventh day unlocks week_streak');
select is((select concat_ws(' ', current_days, longest_days) from app.user_streak(test.uid('dan'))), '7 7', 'app.user_streak: 7 and 7');

-- Every pet: the purchase of the last one answers every_pet, with the balance after the reward.
select app.grant_coins(test.uid('cat'), 100000, 'test');
create temporary table last_pet on commit drop as
select max(i.id::text)::uuid as id from app.shop_items i
where i.kind = 'pet' and i.active and not exists (select from app.user_items ui where ui.user_id = test.uid('cat') and ui.item_id = i.id);
select api.shop_purchases_create(test.token('cat'), '{}', jsonb_build_object('item_id', i.id))
from app.shop_items i
where i.kind = 'pet' and i.active and i.id <> (select id from last_pet)
  and not exists (select from app.user_items ui where ui.user_id = test.uid('cat') and ui.item_id = i.id);
select is(pg_temp.unlocked('cat'), '', 'one pet short: nothing');
create temporary table last_purchase on commit drop as
select r.* from api.shop_purchases_create(test.token('cat'), '{}', jsonb_build_object('item_id', (select id from last_pet))) r;
select is(pg_temp.codes((select body from last_purchase)), 'every_pet', 'the last pet''s purchase answers every_pet');
select is((select (body ->> 'balance')::integer from last_purchase), (select balance from app.users where id = test.uid('cat')),
          'its balance counts the reward');

-- A room completed: both members unlock first_room; the last finisher's answer says so.
select api.rooms_join(test.token('bob'), jsonb_build_object('code', r.body -> 'room' ->> 'code'), '{}'),
       api.rooms_start(test.token('ann'), jsonb_build_object('id', r.body -> 'room' ->> 'id'), '{}')
from api.rooms_create(test.token('ann'), '{}', '{"planned_minutes": 25}') r;
update app.rooms r set created_at = created_at - interval '26 minutes', started_at = started_at - interval '26 minutes'
where r.status = 'running';
update app.focus_sessions s
set started_at = s.started_at - interval '26 minutes',
    occupies = tstzrange(lower(s.occupies) - interval '26 minutes', upper(s.occupies) - interval '26 minutes')
where s.id in (select m.session_id from app.room_members m where m.session_id is not null and m.outcome is null);
select api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', m.session_id), '{}')
from app.room_members m where m.user_id = test.uid('ann') and m.outcome is null and m.session_id is not null;
select is(pg_temp.codes(api.focus_sessions_finish(test.token('bob'), jsonb_build_object('id', m.session_id), '{}')), 'first_session,first_room',
          'bob finishes last: the room completes and his answer says first_session and first_room')
from app.room_members m where m.user_id = test.uid('bob') and m.outcome is null and m.session_id is not null;
select is(pg_temp.unlocked('ann'), 'first_session,first_friend,first_room', 'ann unlocked first_room too');

-- A block ends the friendship: no more seeing each other's.
select api.users_block_create(test.token('ann'), jsonb_build_object('id', test.uid('bob')), null);
select is(test.error_of(format($$ select api.users_achievements_list(%L, jsonb_build_object('id', %L), null) $$,
                               test.token('bob'), test.uid('ann'))),
          'PT404 user_not_found', 'blocked: 404');

select * from finish();
rollback;
