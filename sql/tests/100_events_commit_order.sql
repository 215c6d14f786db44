-- Event ids in commit order without a lock (0032_event_ids.sql): two other sessions (dblink)
-- write events to ann while this one reads them. The writer that began first holds the lower
-- id and commits last; the reader gets neither while it runs, then both, in id order, once;
-- api.events_ring (the server's doorbell) rings ann only once both can be read.
-- (The two writers commit for real: their rows name a user who exists only in this file's
-- transaction, so nothing else ever reads them.)
begin;
select plan(22);
create extension if not exists dblink;
select test.new_user('ann');

create function pg_temp.write(session text, balance integer) returns bigint language sql
as $$ select t.id from dblink(session, format('insert into app.events (user_id, type, payload) values (%L, ''balance.changed'', %L) returning id',
                                              test.uid('ann'), jsonb_build_object('balance', balance))) as t(id bigint) $$;
create function pg_temp.list(after bigint) returns jsonb language sql
as $$ select (api.events_list(test.token('ann'), jsonb_build_object('after', after::text), '{}')).body $$;
create function pg_temp.ids(after bigint) returns bigint[] language sql
as $$ select coalesce(array_agg((e ->> 'id')::bigint order by ord), '{}')
      from jsonb_array_elements(pg_temp.list(after) -> 'events') with ordinality x(e, ord) $$;
-- api.events_ring's rows as '<user id, * or -> <through>'.
create function pg_temp.ring(after bigint) returns text[] language sql
as $$ select array_agg(coalesce(r.user_id, '-') || ' ' || r.through order by r.user_id) from api.events_ring(after) r $$;


select dblink_connect('first', test.dblink_conninfo());
select dblink_connect('second', test.dblink_conninfo());
-- A writer that waited for another (the lock this replaced) fails here instead of hanging.
select dblink_exec('second', 'set lock_timeout = ''10s''');
create temp table mark as select api.newest_event_id() as id;

select dblink_exec('first', 'begin');
create temp table written as select pg_temp.write('first', 1) as first_id;
alter table written add column second_id bigint;
update written set second_id = pg_temp.write('second', 2);  -- its own transaction: committed at once

select cmp_ok((select first_id from written), '<', (select second_id from written),
              'the writer that began first holds the lower id');
select is((select t.running from dblink('first', 'select pg_current_xact_id_if_assigned() is not null') as t(running boolean)), true,
          'the second committed while the first still runs');
select is(pg_temp.ids((select id from mark)), '{}',
          'while the first runs, the reader gets nothing: not even the second''s committed event, which lies above the first''s');
select is(pg_temp.list((select id from mark)) -> 'next', to_jsonb((select id from mark)), '... and its cursor stays');
select is(pg_temp.ring((select id from mark)), array['- ' || (select id from mark)],
          'api.events_ring rings no one yet, and its next `after` stays');
select cmp_ok(api.newest_event_id(), '<', (select first_id from written),
              'a cursor from now (no after) stays below the running writer''s id');
select is(test.error_of(format($$ select api.event_cursor('{"after": "%s"}') $$, (select second_id from written))), 'PT400 invalid_field',
          'the held id is not yet a cursor one may give: 400 invalid_field, as a future id');

select dblink_exec('first', 'commit');
-- Transaction ids are the cluster's: a file of the other pgTAP stream (another database) that
-- began before the first writer holds the horizon too, until it ends (seconds). Wait for it.
select ok(test.horizon_passes((select second_id from written)), 'the horizon passes both ids once no older writer runs');
select is(pg_temp.ids((select id from mark)), array[(select first_id from written), (select second_id from written)],
          'once the first commits, the reader gets both, lower id first');
select is(pg_temp.list((select id from mark)) -> 'next', to_jsonb((select second_id from written)), '... next is the higher');
select is(pg_temp.ring((select id from mark)), array[test.uid('ann') || ' ' || (select second_id from written)],
          'api.events_ring now rings ann, once, and goes on after the higher');
select is(pg_temp.ring((select second_id from written)), array['- ' || (select second_id from written)],
          '... and from there rings no one');
select is(pg_temp.ids((select second_id from written)), '{}', 'after the higher: nothing again (each once)');
select is(pg_temp.ids((select first_id from written)), array[(select second_id from written)],
          'after the lower: the higher only');
select cmp_ok(api.newest_event_id(), '>=', (select second_id from written), 'a cursor from now now starts past both');

-- A broadcast rings everyone ('*'); a listener that just connected starts from the newest id.
update app.mindfulness_tips set content = content || ' Again.' where title = 'Box breathing';
select is((select count(*)::integer from api.events_ring((select id from mark)) r where r.user_id = '*'), 1,
          'a broadcast rings *, once');
select is((select array_agg(r.user_id) from api.events_ring(null) r), array[null::text],
          'api.events_ring(null) (a listener just connected): one row, no one rung');
select is((select r.through from api.events_ring(null) r), api.newest_event_id(), '... from the newest id on');

-- One transaction's ids: consecutive, in the order written, at most 65536 of them.
select app.grant_coins(test.uid('ann'), 5, 'test');
select app.grant_coins(test.uid('ann'), 5, 'test');
select is((select array_agg(e.id - (select min(f.id) from app.events f where f.user_id = test.uid('ann') and f.created_at = now())
                     order by e.id)
           from app.events e where e.user_id = test.uid('ann') and e.created_at = now()),
          '{0,1}', 'one transaction''s events take consecutive ids');
-- The block is read once per transaction (transaction-local settings); move to its last id.
create temp table block as
select s.id_offset + (pg_current_xact_id()::text::bigint << 16) as first_id from app.event_settings s;
select is((select min(e.id) from app.events e where e.created_at = now()), (select first_id from block),
          'the transaction''s first event (the tips broadcast above) took the first id of its block');
select set_config('focus.event_next', ((select first_id from block) + 65535)::text, true);
select app.grant_coins(test.uid('ann'), 5, 'test');
select is((select max(e.id) from app.events e where e.user_id = test.uid('ann') and e.created_at = now()), (select first_id from block) + 65535,
          'the 65536th event of one transaction takes the last id of its block');
select is(test.error_of($$ select app.grant_coins(test.uid('ann'), 5, 'test') $$), '54000',
          'the 65537th event of one transaction is refused (program_limit_exceeded)');

select dblink_disconnect('first');
select dblink_disconnect('second');
select * from finish();
rollback;
