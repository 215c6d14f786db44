-- Blocks and reports: a block ends what is between two users and keeps them apart; the blocked
-- user's requests by email answer as any request but never reach the blocker; reports reach
-- the moderators.
begin;
select plan(22);
select test.new_user(name) from unnest(array['bea', 'cal', 'dot', 'ray']) as name;
select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'))
from (values ('bea', 'cal'), ('cal', 'bea')) v(a, b);  -- bea and cal are friends
select api.friend_requests_create(test.token('dot'), '{}', '{"email": "bea@example.com"}');  -- dot asked bea
select test.session(name, test.day_start(), 30) from unnest(array['bea', 'cal']) as name;
create function pg_temp.block(a text, b text) returns text language sql as $$
    select test.error_of(format($f$ select api.users_block_create(test.token(%L), %L, '{}') $f$, a, jsonb_build_object('id', test.uid(b))))
$$;
create function pg_temp.ask(a text, email text) returns api.reply language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', email))
$$;

select is(pg_temp.block('bea', 'cal'), 'ok', 'bea blocks her friend cal');
select is((api.friends_list(test.token('cal'), '{}', '{}')).body -> 'friends', '[]'::jsonb, 'the friendship ended');
select is((select jsonb_agg(e -> 'user' ->> 'display_name') from jsonb_array_elements(
              (api.leaderboards_get(test.token('cal'), '{"period": "daily"}', '{}')).body -> 'entries') e),
          '["Cal"]'::jsonb, 'they left each other''s friends leaderboard');
select is(test.error_of(format($$ select api.users_get(test.token('cal'), %L, '{}') $$, jsonb_build_object('id', test.uid('bea')))),
          'PT404 user_not_found', 'cal no longer sees bea''s island');
select is(pg_temp.block('bea', 'dot'), 'ok', 'bea blocks dot, who had asked her');
select is((api.friend_requests_list(test.token('bea'), '{}', '{}')).body -> 'incoming', '[]'::jsonb, 'the pending request ended');
select is((select array_agg(action order by id) from app.friendship_events where actor = test.uid('bea') and action <> 'asked'),
          array['removed', 'declined'], 'both endings are in the friendship history');

-- the blocked user's request by email answers as any request (sql/tests/075_blocks_no_leak.sql
-- compares it with one to a user who did not block); the blocker never sees it
select is(((pg_temp.ask('cal', 'bea@example.com')).status, test.answer_of($$ select pg_temp.ask('cal', 'bea@example.com') $$)),
          (null::integer, 'ok'::text), 'cal asking bea is answered as any request (201, then the pending one)');
select is((api.friend_requests_list(test.token('bea'), '{}', '{}')).body -> 'incoming', '[]'::jsonb,
          '... which bea never sees');
select is(test.error_of($$ select pg_temp.ask('bea', 'cal@example.com') $$), 'PT409 user_blocked', 'bea asking cal is 409 user_blocked');
select is(pg_temp.block('bea', 'cal'), 'ok', 'blocking twice answers the same');
select is(pg_temp.block('bea', 'bea'), 'PT422 cannot_block_self', 'blocking yourself is 422');
select is(test.error_of($$ select api.users_block_create(test.token('bea'), '{"id": "00000000-0000-4000-8000-000000000000"}', '{}') $$),
          'PT404 user_not_found', 'an unknown user is 404');
select is((select jsonb_agg(b -> 'user' ->> 'display_name' order by b -> 'user' ->> 'display_name')
           from jsonb_array_elements((api.me_blocks_list(test.token('bea'), '{}', '{}')).body -> 'blocks') b),
          '["Cal", "Dot"]'::jsonb, 'GET /me/blocks lists both');

select is(test.error_of(format($$ select api.users_block_delete(test.token('bea'), %L, '{}') $$, jsonb_build_object('id', test.uid('cal')))),
          'ok', 'bea unblocks cal');
select is(test.error_of(format($$ select api.users_block_delete(test.token('bea'), %L, '{}') $$, jsonb_build_object('id', test.uid('cal')))),
          'PT404 block_not_found', 'unblocking again is 404 block_not_found');
select is((pg_temp.ask('cal', 'bea@example.com')).code, null, 'after unblocking, cal may ask again');

-- reports
select is((api.users_report_create(test.token('ray'), jsonb_build_object('id', test.uid('dot')),
                                   '{"reason": "harassment", "details": "  sends rude names  "}')).body -> 'report' ? 'id', true,
          'ray reports dot');
select is((select row(reason, details, reported_display_name, reporter_user_id = test.uid('ray'))::text from report.user_reports
           where reported_user_id = test.uid('dot')), row('harassment', 'sends rude names', 'Dot', true)::text,
          'the moderators see it in report.user_reports');
select is(test.error_of(format($$ select api.users_report_create(test.token('ray'), %L, '{"reason": "boring"}') $$, jsonb_build_object('id', test.uid('dot')))),
          'PT400 invalid_field', 'an unknown reason is 400');
select is(test.error_of(format($$ select api.users_report_create(test.token('ray'), %L, '{"reason": "spam"}') $$, jsonb_build_object('id', test.uid('ray')))),
          'PT422 cannot_report_self', 'reporting yourself is 422');
select is(test.error_of($$ select api.users_report_create(test.token('ray'), '{"id": "00000000-0000-4000-8000-000000000000"}', '{"reason": "spam"}') $$),
          'PT404 user_not_found', 'reporting an unknown user is 404');

select * from finish();
rollback;
