-- Reading events: api.events_list (paging, next, resync after pruning, bad cursors),
-- api.events_stream_open, and pruning.
begin;
select plan(40);
select test.new_user('ann');
select test.new_user('bob');
create temp table mark as select api.newest_event_id() as id;

-- Three events for ann, one for bob, one for everyone, interleaved.
select app.grant_coins(test.uid('ann'), 10, 'test');
select app.grant_coins(test.uid('bob'), 10, 'test');
select app.grant_coins(test.uid('ann'), 20, 'test');
update app.mindfulness_tips set content = content || ' Again.' where title = 'Box breathing';
select app.grant_coins(test.uid('ann'), 30, 'test');

create function pg_temp.list(name text, params jsonb) returns jsonb language sql
as $$ select (api.events_list(test.token(name), params, '{}')).body $$;
create function pg_temp.after(n integer) returns jsonb language sql
as $$ select jsonb_build_object('after', ((select id from mark) + n)::text) $$;

select is(jsonb_array_length(pg_temp.list('ann', pg_temp.after(0)) -> 'events'), 4,
          'ann reads her three events and the broadcast one, not bob''s');
select is((select array_agg(e ->> 'type' order by ord) from jsonb_array_elements(pg_temp.list('ann', pg_temp.after(0)) -> 'events') with ordinality x(e, ord)),
          array['balance.changed', 'balance.changed', 'tips.changed', 'balance.changed'], '... in id order');
select is((select array_agg((e -> 'data' ->> 'balance')::integer order by ord) from jsonb_array_elements(pg_temp.list('ann', pg_temp.after(0)) -> 'events') with ordinality x(e, ord)),
          array[10, 30, null, 60], '... each with its data');
select is((select array_agg((e ->> 'id')::bigint order by ord) from jsonb_array_elements(pg_temp.list('ann', pg_temp.after(0)) -> 'events') with ordinality x(e, ord)),
          array(select e.id from app.events e where e.id > (select id from mark) and (e.user_id = test.uid('ann') or e.user_id is null) order by e.id),
          '... each with its id, the cursor');
select is((select array_agg(k order by k) from jsonb_object_keys(pg_temp.list('ann', pg_temp.after(0)) -> 'events' -> 0) k),
          array['created_at', 'data', 'id', 'type'], 'an Event is {id, type, data, created_at}');
select is(pg_temp.list('ann', pg_temp.after(0)) -> 'next', pg_temp.list('ann', pg_temp.after(0)) -> 'events' -> 3 -> 'id',
          'next is the last id answered');
select is((select array_agg(e ->> 'type') from jsonb_array_elements(pg_temp.list('bob', pg_temp.after(0)) -> 'events') e),
          array['balance.changed', 'tips.changed'], 'bob reads only his event and the broadcast one');

-- Paging with limit and next.
select is(pg_temp.list('ann', pg_temp.after(0) || '{"limit": "1"}') -> 'events' -> 0 -> 'data', '{"balance": 10}',
          'limit 1: the first event');
select is(pg_temp.list('ann', jsonb_build_object('after', pg_temp.list('ann', pg_temp.after(0) || '{"limit": "1"}') ->> 'next', 'limit', '2')) -> 'events',
          jsonb_path_query_array(pg_temp.list('ann', pg_temp.after(0)), '$.events[1 to 2]'),
          'after the first page''s next: the next two, none skipped or repeated');
select is(pg_temp.list('ann', jsonb_build_object('after', api.newest_event_id()::text)),
          jsonb_build_object('events', '[]'::jsonb, 'next', api.newest_event_id()), 'after the newest id: nothing, next unchanged');
select is(pg_temp.list('ann', '{}'), jsonb_build_object('events', '[]'::jsonb, 'next', api.newest_event_id()),
          'no cursor: nothing, and next is the newest id (start from now)');
select is(pg_temp.list('ann', pg_temp.after(0) || '{"wait": "25"}') -> 'events', pg_temp.list('ann', pg_temp.after(0)) -> 'events',
          'wait is accepted (the server waits) and changes nothing here');

-- Bad input: 400 invalid_field naming the parameter, nothing written.
create temp table before as select count(*) as n from app.events;
select is(test.error_of($$ select pg_temp.list('ann', '{"after": "abc"}') $$), 'PT400 invalid_field', 'after=abc is 400');
select is(test.error_of($$ select pg_temp.list('ann', '{"after": "-1"}') $$), 'PT400 invalid_field', 'after=-1 is 400');
select is(test.error_of($$ select pg_temp.list('ann', '{"after": "1.5"}') $$), 'PT400 invalid_field', 'after=1.5 is 400');
select is(test.error_of($$ select pg_temp.list('ann', '{"after": ""}') $$), 'PT400 invalid_field', 'an empty after is 400');
select is(test.error_of($$ select pg_temp.list('ann', '{"after": "99999999999999999999"}') $$), 'PT400 invalid_field',
          'an after past bigint is 400');
select is(test.error_of($$ select pg_temp.list('ann', jsonb_build_object('after', (api.newest_event_id() + 1)::text)) $$),
          'PT400 invalid_field', 'an after past the newest id (a future or made-up cursor) is 400');
select is(test.error_of($$ select pg_temp.list('ann', pg_temp.after(0) || '{"wait": "61"}') $$), 'PT400 invalid_field', 'wait=61 is 400');
select is(test.error_of($$ select pg_temp.list('ann', pg_temp.after(0) || '{"wait": "100000"}') $$), 'PT400 invalid_field', 'wait=100000 is 400');
select is(test.error_of($$ select pg_temp.list('ann', pg_temp.after(0) || '{"limit": "0"}') $$), 'PT400 invalid_field', 'limit=0 is 400');
select is(test.error_of($$ select pg_temp.list('ann', pg_temp.after(0) || '{"limit": "1001"}') $$), 'PT400 invalid_field', 'limit=1001 is 400');
select is(test.error_of($$ select api.events_list(null, '{}', '{}') $$), 'PT401 unauthorized', 'no token is 401');
select is((select count(*) from app.events), (select n from before), '... and none of them wrote anything');

-- Opening a stream.
select is((api.events_stream_open(test.token('ann'), '{}', '{}')).body - 'max_polls' - 'token_expires_in',
          jsonb_build_object('user_id', test.uid('ann'), 'max_streams', 3, 'next', api.newest_event_id()),
          'opening a stream: whose it is, at most 3 streams, and the newest id to start after');
select is((api.events_stream_open(test.token('ann'), pg_temp.after(1), '{}')).body -> 'next', to_jsonb((select id from mark) + 1),
          '... or the cursor it resumes after');
update app.event_settings set max_streams_per_user = 5;
select is((api.events_stream_open(test.token('ann'), '{}', '{}')).body -> 'max_streams', '5', 'a DBA changes the stream limit');
select is(test.error_of($$ select api.events_stream_open(test.token('ann'), '{"after": "-1"}', '{}') $$), 'PT400 invalid_field',
          'a stream with after=-1 is 400');
select is(test.error_of($$ select api.events_stream_open(test.token('ann'), jsonb_build_object('after', (api.newest_event_id() + 1)::text), '{}') $$),
          'PT400 invalid_field', 'a stream resuming after a future id is 400');
select is(test.error_of($$ select api.events_stream_open('made-up', '{}', '{}') $$), 'PT401 unauthorized', 'a stream without a valid token is 401');

-- Pruning and resync: events older than the retention go; a cursor below them answers resync.
insert into app.events (user_id, type, payload, created_at)
values (test.uid('ann'), 'balance.changed', '{"balance": 1}', now() - interval '8 days');
create temp table old as select max(id) as id from app.events;
select app.grant_coins(test.uid('ann'), 40, 'test');
select is(app.prune_events() >= 1, true, 'pruning deletes the event older than 7 days');
select is((select count(*) from app.events e join app.partitions('app.events') p on p.part = e.tableoid
           where e.created_at < now() - interval '7 days' and (p.lower is null or p.upper <= now() - interval '7 days')),
          0::bigint, '... and every other one that old (a day not wholly past the retention goes when it is)');
select is((select pruned_through from app.event_settings), (select id from old), '... and remembers the highest id it deleted');
select is(pg_temp.list('ann', jsonb_build_object('after', ((select id from old) - 1)::text)),
          jsonb_build_object('events', jsonb_build_array(jsonb_build_object('id', api.newest_event_id(), 'type', 'resync', 'data', '{}'::jsonb,
                                                                             'created_at', api.iso(now()))),
                             'next', api.newest_event_id()),
          'a cursor below the pruned id: one resync event, and next is the newest id');
select is((select array_agg(e -> 'data' ->> 'balance') from jsonb_array_elements(pg_temp.list('ann', jsonb_build_object('after', (select id::text from old))) -> 'events') e),
          array['100'], 'a cursor at the pruned id: what came after, as usual');
select is(test.error_of($$ select api.events_list(test.token('ann'), jsonb_build_object('after', (api.newest_event_id() + 1)::text), '{}') $$),
          'PT400 invalid_field', 'after pruning, a future cursor is still 400');
-- A day partition goes whole once its end is past the retention (sql/tests/100_events_partitions.sql):
-- what lies before the day holding now() - retention is gone (in the hour after midnight, that
-- is yesterday's start: yesterday's partition ends less than the retention ago).
update app.event_settings set retention = interval '1 hour';
insert into app.events (user_id, type, payload, created_at)
values (test.uid('bob'), 'balance.changed', '{"balance": 2}', app.partition_slot(now() - interval '1 hour', interval '1 day') - interval '2 hours');
select is(test.error_as('focus_api', $$ select api.events_prune() $$), 'ok', 'the server may prune (api.events_prune)');
select is((select count(*) from app.events e where e.created_at < app.partition_slot(now() - interval '1 hour', interval '1 day')), 0::bigint,
          '... with the retention a DBA set');
select is(test.error_as('focus_api', $$ select app.prune_events() $$), '42501', 'but it cannot reach app');
select is(test.error_of($$ update app.event_settings set retention = interval '1 minute' $$), '23514',
          'a retention under an hour is refused');

select * from finish();
rollback;
