-- POST /focus-sessions/{id}/finish {ended_at}: a session that stopped while the phone was
-- offline ends when it stopped and earns by the minutes really focused, never past the plan;
-- a time out of range is refused and changes nothing. And the earning threshold is the row's.
begin;
select plan(13);
select test.new_user('ann');
select test.new_user('ben');

-- A live session of ann's started 40 minutes ago with a 25-minute plan (moved back by hand:
-- the file's transaction has one now()).
create temporary table live on commit drop as
select (r.body -> 'session' ->> 'id')::uuid as id
from api.focus_sessions_start(test.token('ann'), '{}', '{"planned_minutes": 25}') r;
update app.focus_sessions s
set started_at = now() - interval '40 minutes',
    occupies = tstzrange(now() - interval '40 minutes', upper(s.occupies) - interval '40 minutes')
where s.id = (select id from live);
create temporary table ledger_before on commit drop as select count(*) as n from app.coin_ledger;

select is(test.error_of(format($$ select api.focus_sessions_finish(%L, jsonb_build_object('id', %L), jsonb_build_object('ended_at', %L)) $$,
                               test.token('ann'), (select id from live), api.iso(now() - interval '40 minutes'))),
          'PT422 invalid_session', 'ended_at at the start is invalid_session');
select is(test.error_of(format($$ select api.focus_sessions_finish(%L, jsonb_build_object('id', %L), jsonb_build_object('ended_at', %L)) $$,
                               test.token('ann'), (select id from live), api.iso(now() - interval '2 hours'))),
          'PT422 invalid_session', 'ended_at before the start is invalid_session');
select is(test.error_of(format($$ select api.focus_sessions_finish(%L, jsonb_build_object('id', %L), jsonb_build_object('ended_at', %L)) $$,
                               test.token('ann'), (select id from live), api.iso(now() + interval '10 minutes'))),
          'PT422 invalid_session', 'ended_at in the future (past the clock skew) is invalid_session');
select is(test.error_of(format($$ select api.focus_sessions_finish(%L, jsonb_build_object('id', %L), '{"ended_at": "yesterday"}') $$,
                               test.token('ann'), (select id from live))),
          'PT400 invalid_field', 'a malformed ended_at is invalid_field');
select is(test.error_of(format($$ select api.focus_sessions_finish(%L, jsonb_build_object('id', %L), '{"ended": "2026-12-01T10:00:00Z"}') $$,
                               test.token('ann'), (select id from live))),
          'PT400 invalid_field', 'an unknown key is invalid_field');
select is(test.error_of(format($$ select api.focus_sessions_finish(%L, jsonb_build_object('id', %L), jsonb_build_object('ended_at', %L)) $$,
                               test.token('ben'), (select id from live), api.iso(now() - interval '25 minutes'))),
          'PT404 session_not_found', 'someone else''s session is session_not_found');
select is((select concat_ws(' ', s.ended_at is null, (select count(*) from app.coin_ledger) = (select n from ledger_before))
           from app.focus_sessions s where s.id = (select id from live)),
          't t', 'after the refusals the session still runs and nothing was paid');

select is((select concat_ws(' ', r.body -> 'session' ->> 'minutes', r.body -> 'session' ->> 'coins_earned',
                            r.body -> 'session' ->> 'ended_at')
           from api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', (select id from live)),
                                          jsonb_build_object('ended_at', api.iso(now() - interval '25 minutes'))) r),
          concat_ws(' ', '15', '15', api.iso(now() - interval '25 minutes')),
          'ended 15 minutes in: 15 minutes, 15 coins, ended there');
select is((api.focus_sessions_finish(test.token('ann'), jsonb_build_object('id', (select id from live)),
                                     jsonb_build_object('ended_at', api.iso(now()))) ).body -> 'session' ->> 'minutes',
          '15', 'finishing again with another ended_at answers the same');

-- Past the plan: the plan caps it, as finishing now would.
create temporary table long on commit drop as
select (r.body -> 'session' ->> 'id')::uuid as id
from api.focus_sessions_start(test.token('ben'), '{}', '{"planned_minutes": 20}') r;
update app.focus_sessions s
set started_at = now() - interval '60 minutes',
    occupies = tstzrange(now() - interval '60 minutes', upper(s.occupies) - interval '60 minutes')
where s.id = (select id from long);
select is((api.focus_sessions_finish(test.token('ben'), jsonb_build_object('id', (select id from long)),
                                     jsonb_build_object('ended_at', api.iso(now() - interval '10 minutes')))).body -> 'session' ->> 'minutes',
          '20', 'an ended_at past the plan counts the plan');

-- The earning threshold is the row's: a 12-minute session earns at 10, not at 15.
select is((api.focus_sessions_create(test.token('ann'), '{}', jsonb_build_object(
              'id', md5('twelve-a')::uuid, 'started_at', api.iso(now() - interval '3 hours'),
              'ended_at', api.iso(now() - interval '3 hours' + interval '12 minutes')))).body -> 'session' ->> 'coins_earned',
          '12', 'with the threshold at 10, 12 minutes earn 12 coins');
update app.economy_settings set min_minutes_to_earn = 15;
select is((api.focus_sessions_create(test.token('ann'), '{}', jsonb_build_object(
              'id', md5('twelve-b')::uuid, 'started_at', api.iso(now() - interval '2 hours'),
              'ended_at', api.iso(now() - interval '2 hours' + interval '12 minutes')))).body -> 'session' ->> 'coins_earned',
          '0', 'raised to 15 in SQL, 12 minutes earn nothing');
select is((api.config_get(null, '{}', '{}')).body -> 'economy' ->> 'min_minutes_to_earn', '15', '... as GET /config says');

select * from finish();
rollback;
