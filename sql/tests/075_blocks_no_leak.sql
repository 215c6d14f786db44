-- A blocked user cannot tell they are blocked: asking, reporting and blocking someone who
-- blocked you answer exactly as they do for someone who did not (ids and names aside); the
-- blocker never sees or hears of the request; the global board keeps the two apart both ways.
begin;
select plan(21);
select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan']) as name;
select api.users_block_create(test.token('ann'), jsonb_build_object('id', test.uid('bob')), '{}');  -- ann blocks bob
select test.new_events();
-- A reply with what names the other person taken out: ids, names, times.
create function pg_temp.shape(reply api.reply) returns text language sql as $$
    select row(reply.status, reply.code, reply.message, reply.retry_after,
               regexp_replace(reply.body::text, '"(id|user_id|created_at|display_name)": "[^"]*"', '"\1": "…"', 'g'))::text
$$;
create function pg_temp.ask(a text, b text) returns api.reply language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'))
$$;
create function pg_temp.report(a text, b text) returns api.reply language sql as $$
    select api.users_report_create(test.token(a), jsonb_build_object('id', test.uid(b)), '{"reason": "spam"}')
$$;
create function pg_temp.block(a text, b text) returns api.reply language sql as $$
    select api.users_block_create(test.token(a), jsonb_build_object('id', test.uid(b)), '{}')
$$;
create function pg_temp.outgoing(name text) returns jsonb language sql as $$
    select coalesce(jsonb_agg(r -> 'to' ->> 'display_name' order by r -> 'to' ->> 'display_name'), '[]')
    from jsonb_array_elements((api.friend_requests_list(test.token(name), '{}', '{}')).body -> 'outgoing') r
$$;
create function pg_temp.incoming(name text) returns jsonb language sql as $$
    select coalesce(jsonb_agg(r -> 'from' ->> 'display_name'), '[]')
    from jsonb_array_elements((api.friend_requests_list(test.token(name), '{}', '{}')).body -> 'incoming') r
$$;

-- friend requests
select is(pg_temp.shape(pg_temp.ask('bob', 'ann')), pg_temp.shape(pg_temp.ask('bob', 'dan')),
          'bob asking ann, who blocked him, is answered exactly as asking dan (201 with the request)');
select is(pg_temp.shape(pg_temp.ask('bob', 'ann')), pg_temp.shape(pg_temp.ask('bob', 'dan')),
          'asking again: the same answer for both (200 with the pending request)');
select is(pg_temp.outgoing('bob'), '["Ann", "Dan"]'::jsonb, 'bob sees both requests as outgoing');
select is((pg_temp.incoming('ann'), pg_temp.incoming('dan')), ('[]'::jsonb, '["Bob"]'::jsonb),
          'ann never sees bob''s request; dan does');
select is(test.new_events(), array['dan friend_request.received bob'], 'only dan hears of a request');
select is(test.error_of(format($$ select api.friend_requests_accept(test.token('ann'), %L, '{}') $$,
                               jsonb_build_object('id', (api.pair(test.uid('ann'), test.uid('bob'))).id))),
          'PT404 friend_request_not_found', 'ann cannot accept a request she never saw (404 as any unknown id)');
select is(test.error_of(format($$ select api.friend_requests_delete(test.token('bob'), %L, '{}') $$,
                               jsonb_build_object('id', (api.pair(test.uid('ann'), test.uid('bob'))).id))),
          'ok', 'bob cancels it as any request of his');
select is(test.new_events(), '{}'::text[], '... and ann hears nothing of it');
select is(test.answer_of($$ select pg_temp.ask('bob', 'ann') $$), 'ok', 'bob asks ann again');
select is(test.error_of(format($$ select api.users_block_delete(test.token('ann'), %L, '{}') $$, jsonb_build_object('id', test.uid('bob')))),
          'ok', 'ann unblocks bob');
select is((pg_temp.outgoing('bob'), test.new_events()), ('["Dan"]'::jsonb, array['bob friend_request.ended']),
          '... which ends bob''s hidden request as a decline would: bob hears it ended');
select pg_temp.block('ann', 'bob');  -- and blocks him again
select is(test.answer_of($$ select pg_temp.ask('bob', 'ann') $$), 'ok', 'bob asks ann once more (hidden again)');
select test.new_events();

-- reports and blocks
select is(pg_temp.shape(pg_temp.report('bob', 'ann')), pg_temp.shape(pg_temp.report('bob', 'dan')),
          'bob reporting ann is answered exactly as reporting dan (201 with the report)');
select is(pg_temp.shape(pg_temp.report('bob', 'ann')), pg_temp.shape(pg_temp.report('bob', 'dan')),
          'reporting again: the same answer for both (200 with the open report)');
select is((select count(*) from app.user_reports where reporter = test.uid('bob') and reported = test.uid('ann')), 1::bigint,
          'bob''s report of ann is stored for the moderators');
select is(pg_temp.shape(pg_temp.block('bob', 'ann')), pg_temp.shape(pg_temp.block('bob', 'cat')),
          'bob blocking ann is answered exactly as blocking cat (204)');
select is((test.new_events(), (api.pair(test.uid('ann'), test.uid('bob'))).id), ('{}'::text[], null::uuid),
          'his block ends his hidden request without a word to ann');

-- the global board, both ways
select test.session(name, test.day_start(), minutes) from (values ('ann', 50), ('bob', 30), ('dan', 40)) v(name, minutes);
set constraints all immediate;
create function pg_temp.board(name text) returns jsonb language sql as $$
    select jsonb_build_object('entries', (select jsonb_agg(jsonb_build_array(e -> 'user' ->> 'display_name', e -> 'rank'))
                                           from jsonb_array_elements(b.body -> 'entries') e),
                              'me', b.body -> 'me' -> 'rank')
    from api.leaderboards_get(test.token(name), '{"period": "daily", "scope": "global"}', '{}') b
$$;
select is(pg_temp.board('bob'), '{"entries": [["Dan", 1], ["Bob", 2]], "me": 2}'::jsonb,
          'bob''s global board leaves out ann, who blocked him, and ranks him second of the users shown');
select is(pg_temp.board('ann'), '{"entries": [["Ann", 1], ["Dan", 2]], "me": 1}'::jsonb,
          'ann''s leaves out bob, whom she blocked');
select is(pg_temp.board('dan'), '{"entries": [["Ann", 1], ["Dan", 2], ["Bob", 3]], "me": 2}'::jsonb,
          'dan, who blocked nobody, sees all three');
select is((api.leaderboards_get(test.token('bob'), '{"period": "weekly", "scope": "global"}', '{}')).body -> 'me',
          '{"rank": 2, "minutes": 30}'::jsonb, 'the weekly rank leaves ann out too');

select * from finish();
rollback;
