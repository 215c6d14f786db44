-- app.archive_friendship_events (2026-12-06): events of a year ago and of today; the old ones
-- archived in batches of two into counts per UTC day and action. The funnel is the same, whole,
-- before, midway and after; run again archives nothing; today's events stay; the counts are
-- read (a wrong one shows); nothing else may delete or change an event.
begin;
select plan(12);
select test.new_user(name) from unnest(array['fra', 'frb']) name;
-- Without their trigger (session_replication_role = replica): each would write an app.events row.
set local session_replication_role = replica;
insert into app.friendship_events (request_id, user_low, user_high, actor, action, created_at)
select gen_random_uuid(), least(test.uid('fra'), test.uid('frb')), greatest(test.uid('fra'), test.uid('frb')), test.uid('fra'),
       a, test.day_start(d) + interval '3 hours'
from (values ('asked', 400), ('declined', 400), ('asked', 380), ('accepted', 380), ('removed', 300), ('asked', 0)) v(a, d);
set local session_replication_role = origin;
create function pg_temp.funnel() returns text language sql stable as $$
    select string_agg(f::text, ',' order by f.day) from report.friendship_funnel_per_day f
$$;
create temp table seen as select pg_temp.funnel() as before;
create temp table old as select count(*)::integer as events from app.friendship_events e where e.created_at < test.day_start(200);

-- Refusals, as every archive's (app.archive_arguments_check).
select throws_ok($$select app.archive_friendship_events(test.day_start(200) + interval '1 hour', 2)$$, '22023',
                 'before is a UTC midnight', 'a horizon within a day is refused');
select throws_ok($$select app.archive_friendship_events(test.day_start(10), 2)$$, '22023',
                 'before is at least 90 days ago', 'a horizon within 90 days is refused');
select throws_ok($$select app.archive_friendship_events(test.day_start(200), 0)$$, '22023',
                 'batch_size is at least 1', 'an empty batch is refused');
select is(app.archive_friendship_events(test.day_start(200), 2), 2, 'a batch archives at most batch_size');
select is(pg_temp.funnel(), (select before from seen), 'midway (interrupted): the funnel is the same');
create temp table runs (moved integer);
do $$
begin
    loop
        insert into runs values (app.archive_friendship_events(test.day_start(200), 2));
        exit when (select r.moved from runs r order by ctid desc limit 1) = 0;
    end loop;
end
$$;
select is((select sum(r.moved)::integer + 2 from runs r), (select events from old), 'resumed, every old event is archived once');
select is((select count(*)::integer from app.friendship_events e where e.created_at >= test.day_start(200)
           and e.user_low = least(test.uid('fra'), test.uid('frb'))), 1, 'today''s event stays');
select is(pg_temp.funnel(), (select before from seen), 'after: the funnel is the same');
select is(app.archive_friendship_events(test.day_start(200), 2), 0, 'run again: none');
update app.friendship_event_day_totals set events = events + 1
where day = (test.day_start(300) at time zone 'UTC')::date and action = 'removed';
select isnt(pg_temp.funnel(), (select before from seen), 'a wrong count shows in the funnel');
select is(test.error_of($$delete from app.friendship_events$$), '23001', 'a delete outside the archive is refused');
select is(test.error_of($$update app.friendship_events set action = action$$), '23001', 'an update is refused');
select * from finish();
rollback;
