-- GET /focus-sessions/current and POST /focus-sessions/{id}/abandon.
begin;
select plan(12);
select test.new_user('ann');
select test.new_user('ben');
select is((api.focus_sessions_current_get(test.token('ann'), '{}', '{}')).status, 204, 'no running session: 204');
create temporary table started on commit drop as
select jsonb_build_object('id', coalesce(r.body -> 'session' ->> 'id', r.body ->> 'id')) as body  -- {session} or the flat answer
from api.focus_sessions_start(test.token('ann'), '{}', '{"planned_minutes": 25}') r;
select is((select r.body -> 'session' ->> 'id' from api.focus_sessions_current_get(test.token('ann'), '{}', '{}') r),
          (select body ->> 'id' from started), 'the running session, by its id');
select is((select concat_ws(' ', r.body -> 'session' ->> 'planned_minutes', r.body -> 'session' ->> 'ends_at', r.body ->> 'now')
           from api.focus_sessions_current_get(test.token('ann'), '{}', '{}') r),
          concat_ws(' ', '25', api.iso(now() + interval '25 minutes'), api.iso(now())), 'with its plan, where it ends and the server''s time');
select is((api.focus_sessions_current_get(test.token('ben'), '{}', '{}')).status, 204, 'someone else''s running session is not yours');

select is(test.error_of(format($$ select api.focus_sessions_abandon(%L, jsonb_build_object('id', %L), '{}') $$, test.token('ben'), (select body ->> 'id' from started))),
          'PT404 session_not_found', 'abandoning someone else''s session is session_not_found');
create temporary table abandoned on commit drop as
select (api.focus_sessions_abandon(test.token('ann'), jsonb_build_object('id', (select body ->> 'id' from started)), '{}')).body as body;
select is((select concat_ws(' ', body -> 'session' ->> 'abandoned', body -> 'session' ->> 'minutes', body -> 'session' ->> 'coins_earned') from abandoned),
          'true 0 0', 'abandoned: 0 minutes, no coins');
select is((select count(*)::integer from app.coin_ledger where user_id = test.uid('ann') and entry = 'earn'), 0, 'nothing was earned');
select is((api.focus_sessions_current_get(test.token('ann'), '{}', '{}')).status, 204, 'it no longer runs');
select is((api.focus_sessions_abandon(test.token('ann'), jsonb_build_object('id', (select body ->> 'id' from started)), '{}')).body,
          (select body from abandoned), 'abandoning again answers the same');
select is((api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', (select body ->> 'id' from started)), '{}')).body -> 'session' ->> 'coins_earned',
          '0', 'finishing it afterwards earns nothing');
select is((api.focus_sessions_rate(test.token('ann'), jsonb_build_object('id', (select body ->> 'id' from started)), '{"rating": "bad"}')).body -> 'tip' ->> 'rating_level',
          'bad', 'an abandoned session can be rated');
select is(test.error_of(format($$ select api.focus_sessions_abandon(%L, jsonb_build_object('id', %L), '{}') $$, test.token('ann'),
                               test.session('ann', test.day_start(1) + interval '2 hours', 30))),
          'PT409 session_finished', 'a session that ended otherwise cannot be abandoned');

select * from finish();
rollback;
