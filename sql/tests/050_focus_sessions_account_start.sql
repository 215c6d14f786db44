-- A session never starts before its account was made (2026-12-06, docs/economy.md): an offline
-- upload starting earlier is 422 invalid_session, alone or in a batch, with nothing written and
-- no coin paid; the trigger focus_sessions_after_account refuses any other write of such a
-- session (23514). A new account therefore cannot record the days before it existed.
begin;
select plan(11);
select test.new_user('fresh');
-- Fresh signed up 30 minutes ago.
select test.made_ago('fresh', interval '30 minutes');
create temp table before as select (select balance from app.users where id = test.uid('fresh')) as balance;
create function pg_temp.upload(started timestamptz, ended timestamptz) returns api.reply language sql as $$
    select api.focus_sessions_create(test.token('fresh'), '{}', jsonb_build_object(
        'id', gen_random_uuid(), 'started_at', api.iso(started), 'ended_at', api.iso(ended)))
$$;
create function pg_temp.detail_of(started timestamptz, ended timestamptz) returns text language plpgsql as $$
declare
    v_message text;
begin
    perform pg_temp.upload(started, ended);
    return null;
exception when others then
    get stacked diagnostics v_message = message_text;
    return v_message;
end
$$;
create temp table made as select created_at from app.users where id = test.uid('fresh');

-- Six days before the account, the farm's first move: refused.
select is(test.error_of($$ select pg_temp.upload(test.day_start(6), test.day_start(6) + interval '179 minutes') $$),
          'PT422 invalid_session', 'a session six days before the account was made: 422 invalid_session');
select is(pg_temp.detail_of(test.day_start(6), test.day_start(6) + interval '179 minutes'),
          'The session starts before your account was made.', '... saying why');
-- A second before the account, ending after it: refused too (it starts before).
select is(test.error_of($$ select pg_temp.upload((select created_at from made) - interval '1 second', (select created_at from made) + interval '20 minutes') $$),
          'PT422 invalid_session', 'a session starting a second before the account: 422 invalid_session');
select is((select count(*)::integer from app.focus_sessions where user_id = test.uid('fresh')), 0, '... no session written');
select is((select balance from app.users where id = test.uid('fresh')), (select balance from before), '... no coin paid');
select is((select count(*)::integer from app.coin_ledger where user_id = test.uid('fresh') and entry = 'earn'), 0, '... no ledger row');

-- The batch answers the item 422 and writes nothing of it.
select is((api.focus_sessions_batch_create(test.token('fresh'), '{}', jsonb_build_object('sessions', jsonb_build_array(jsonb_build_object(
              'id', gen_random_uuid(), 'started_at', api.iso(test.day_start(3)), 'ended_at', api.iso(test.day_start(3) + interval '60 minutes'))))))
          .body -> 'results' -> 0 -> 'problem' ->> 'code',
          'invalid_session', 'in a batch: that item''s 422 invalid_session');
select is((select count(*)::integer from app.focus_sessions where user_id = test.uid('fresh')), 0, '... nothing written');

-- From the account's first instant on, a session is recorded.
select is((pg_temp.upload((select created_at from made), (select created_at from made) + interval '15 minutes')).body -> 'session' ->> 'minutes',
          '15', 'a session starting the instant the account was made is recorded');

-- Any other write of such a session meets the trigger.
select throws_ok(format($$ insert into app.focus_sessions (user_id, source, started_at, ended_at, occupies, minutes)
                          values (%L, 'offline', %L, %L, tstzrange(%L, %L), 5) $$,
                        test.uid('fresh'), test.day_start(2), test.day_start(2) + interval '5 minutes',
                        test.day_start(2), test.day_start(2) + interval '5 minutes'),
                 '23514', null, 'a session written before its account by any other path: check_violation');
select throws_ok(format($$ update app.focus_sessions set started_at = started_at - interval '1 day', occupies = tstzrange(started_at - interval '1 day', ended_at)
                          where user_id = %L $$, test.uid('fresh')),
                 '23514', null, '... and moving a session''s start before its account too');

select * from finish();
rollback;
