-- POST /focus-sessions/batch: one result per item, a bad item rolls back alone (its rating
-- too), a replayed batch earns nothing twice; planned_minutes may be left out of a replay.
begin;
select plan(18);
select test.new_user('ann');
-- Yesterday (a whole UTC day in the past whatever the clock), 30-minute sessions.
create function pg_temp.item(n integer, minutes integer default 30, extra jsonb default '{}') returns jsonb language sql as $$
    select jsonb_build_object('id', md5('batch' || n)::uuid,
                              'started_at', api.iso(test.day_start(1) + make_interval(hours => n)),
                              'ended_at', api.iso(test.day_start(1) + make_interval(hours => n, mins => minutes))) || extra
$$;
create function pg_temp.ledger() returns text language sql as $$
    select count(*) || ' rows, ' || coalesce(sum(amount), 0) || ' coins' from app.coin_ledger where user_id = test.uid('ann') and entry = 'earn'
$$;
create temporary table batch on commit drop as
select (api.focus_sessions_batch_create(test.token('ann'), '{}', jsonb_build_object('sessions', jsonb_build_array(
    pg_temp.item(1, extra => '{"planned_minutes": 30, "rating": "good"}'),            -- valid, rated
    pg_temp.item(2),                                                                   -- valid
    jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(test.day_start(1) + interval '2 hours 10 minutes'),
                       'ended_at', api.iso(test.day_start(1) + interval '2 hours 20 minutes')),   -- overlaps item 2
    jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(now() + interval '1 hour'),
                       'ended_at', api.iso(now() + interval '2 hours')),                -- in the future
    pg_temp.item(1, extra => '{"planned_minutes": 30, "rating": "good"}'),            -- item 1 again
    pg_temp.item(3, extra => '{"rating": "great"}'),                                  -- a bad rating
    '"not an object"'::jsonb
)))).body -> 'results' as results;

select is((select jsonb_agg(r -> 'status') from batch, jsonb_array_elements(results) r),
          '[201, 201, 409, 422, 200, 400, 400]'::jsonb, 'one result per item, in order: new, new, overlap, future, replay, bad rating, not an object');
select is((select jsonb_agg(r -> 'kind') from batch, jsonb_array_elements(results) r),
          '["applied", "applied", "rejected", "rejected", "applied", "rejected", "rejected"]'::jsonb,
          'each result names its shape in kind (the discriminator): applied with a body, rejected with a problem');
select is((select results -> 2 -> 'problem' ->> 'code' from batch), 'session_overlap', 'the overlapping item is session_overlap as problem+json');
select is((select results -> 3 -> 'problem' ->> 'code' from batch), 'invalid_session', 'the future item is invalid_session');
select is((select results -> 5 -> 'problem' ->> 'field' from batch), 'rating', 'the bad rating names its field');
select is((select results -> 3 -> 'problem' ->> 'type' from batch), 'urn:focus-island:problem:invalid_session', 'a problem has its type like any problem+json');
select is((select count(*)::integer from app.focus_sessions where user_id = test.uid('ann')), 2,
          'only the two valid sessions were recorded (the bad rating rolled its session back)');
select is((select results -> 0 -> 'body' -> 'tip' ->> 'rating_level' from batch), 'good', 'a rated item carries its tip');
select is((select results -> 0 -> 'body' -> 'session' ->> 'rating' from batch), 'good', '... and its session shows the rating');
select is((select results -> 4 -> 'body' -> 'tip' from batch), (select results -> 0 -> 'body' -> 'tip' from batch),
          'the item repeated within the batch answers the same tip');
select is((select count(*)::integer from app.tip_views where user_id = test.uid('ann')), 1, 'one tip was shown, once');
select is(pg_temp.ledger(), '2 rows, ' || (select sum(coins_earned) from app.focus_sessions where user_id = test.uid('ann')) || ' coins',
          'two earnings');

-- The whole batch again: nothing earned twice, the same tip; without planned_minutes too.
create temporary table again on commit drop as
select (api.focus_sessions_batch_create(test.token('ann'), '{}', jsonb_build_object('sessions', jsonb_build_array(
    pg_temp.item(1, extra => '{"rating": "good"}'), pg_temp.item(2))))).body -> 'results' as results;
select is((select jsonb_agg(r -> 'status') from again, jsonb_array_elements(results) r), '[200, 200]'::jsonb,
          'a replayed batch answers 200 for each session, planned_minutes left out included');
select is((select results -> 0 -> 'body' -> 'tip' from again), (select results -> 0 -> 'body' -> 'tip' from batch), '... with the same tip');
select is(pg_temp.ledger(), '2 rows, ' || (select sum(coins_earned) from app.focus_sessions where user_id = test.uid('ann')) || ' coins',
          '... and earns nothing twice');

-- Limits.
select is(test.error_of($$ select api.focus_sessions_batch_create(test.token('ann'), '{}', '{"sessions": []}') $$),
          'PT400 invalid_field', 'an empty batch is invalid_field');
select is(test.error_of($$ select api.focus_sessions_batch_create(test.token('ann'), '{}',
                               jsonb_build_object('sessions', (select jsonb_agg(pg_temp.item(n)) from generate_series(1, 101) n))) $$),
          'PT400 invalid_field', 'a batch of 101 is invalid_field');
select is(test.error_of($$ select api.focus_sessions_create(test.token('ann'), '{}', pg_temp.item(1, extra => '{"planned_minutes": 45}')) $$),
          'PT409 session_conflict', 'a replay with another planned_minutes is still a conflict');

select * from finish();
rollback;
