-- report.partitions lists each time partition of app.events, app.login_failures,
-- app.outgoing_mail and app.idempotency_keys with its bounds: the days ahead and the default
-- partition, for focus_report.
begin;
select plan(4);
select ok((select count(*) from report.partitions p where p.parent = 'app.events' and p.bounds like 'FOR VALUES FROM%') >= 4,
          'the day partitions of app.events are listed with their bounds');
select is((select count(*)::integer from report.partitions p where p.partition = 'events_part_default' and p.bounds = 'DEFAULT'), 1,
          'and the default partition');
select is((select array_agg(p.parent order by p.parent) from report.partitions p where p.bounds = 'DEFAULT'),
          array['app.events', 'app.idempotency_keys', 'app.login_failures', 'app.outgoing_mail'],
          'each partitioned table is listed, with its default partition');
select is(test.error_as('focus_report', 'select * from report.partitions'), 'ok', 'focus_report reads it');
select * from finish();
rollback;
