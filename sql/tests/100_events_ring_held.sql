-- api.events_ring's `held` (the listener asks again sooner while it is true): a committed event
-- that waits for an older writer to end makes it true, and it is false again once the event can
-- be read. Two other sessions (dblink) write events to ann while this one rings; the writer that
-- began first commits last. (They commit for real: their rows name a user who exists only in
-- this file's transaction, so nothing else ever reads them.)
begin;
select plan(7);
create extension if not exists dblink;
select test.new_user('ann');

create function pg_temp.write(session text) returns bigint language sql
as $$ select t.id from dblink(session, format('insert into app.events (user_id, type, payload) values (%L, ''balance.changed'', ''{}'') returning id',
                                              test.uid('ann'))) as t(id bigint) $$;

create temp table mark as select api.newest_event_id() as id;
select is((select array_agg(r.held) from api.events_ring((select id from mark)) r), array[false],
          'no event waits: one row, held is false');

select dblink_connect('first', test.dblink_conninfo());
select dblink_connect('second', test.dblink_conninfo());
select dblink_exec('first', 'begin');
create temp table written as select pg_temp.write('first') as first_id;
alter table written add column second_id bigint;
update written set second_id = pg_temp.write('second');  -- its own transaction: committed at once

select is((select array_agg(r.held) from api.events_ring((select id from mark)) r), array[true],
          'a committed event waits for the older writer: no one is rung, and held is true');
select is((select array_agg(r.held) from api.events_ring(null) r), array[true],
          '... also for a listener that just connected');

select dblink_exec('first', 'commit');
-- Transaction ids are the cluster's: a file of the other pgTAP stream (another database) that
-- began before the first writer holds the horizon too, until it ends (seconds). Wait for it.
select ok(test.horizon_passes((select second_id from written)), 'the horizon passes both ids once the older writer ends');
select is((select array_agg(r.user_id) from api.events_ring((select id from mark)) r), array[test.uid('ann')::text],
          'then ann is rung, once');
select is((select array_agg(r.held) from api.events_ring((select id from mark)) r), array[false], '... and held is false');
select is((select array_agg(r.through) from api.events_ring((select id from mark)) r), array[(select second_id from written)],
          '... and the next `after` is the higher id');

select dblink_disconnect('first');
select dblink_disconnect('second');
select * from finish();
rollback;
