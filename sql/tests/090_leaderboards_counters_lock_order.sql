-- A change of time zone rebuilds the user's rollup (app.rebuild_rollup) and moves them between
-- count rows of the rank histogram (migration 0013), whose triggers run at commit. The rebuild
-- locks every count row it will move the user between, old keys and new, at once and in key
-- order, before those triggers: two users of one shard changing zones together then wait for
-- each other in one order, never in a cycle (before 2026-12-02 each could hold a key the other
-- needed next: a deadlock). Here the triggers stay deferred, as in a request's transaction.
begin;
select plan(4);
select test.new_user('ada');
-- Sessions just before this UTC day's and this week's start: in Tokyo they fall on the next
-- local day (and maybe week), so the zone change moves ada to new keys.
select test.session('ada', test.day_start() - interval '2 hours', 30),
       test.session('ada', test.day_start(1) - interval '2 hours', 20);
set constraints all immediate;
set constraints all deferred;

-- The count rows of ada's keys, old (before the change) and new (after): daily and weekly.
create temp table old_keys as
select 'daily' as kind, d.day as key, d.minutes from app.daily_minutes d where d.user_id = test.uid('ada')
union all
select 'weekly', w.week, w.minutes from app.weekly_minutes w where w.user_id = test.uid('ada');
update app.users set time_zone = 'Asia/Tokyo' where id = test.uid('ada');
create temp table new_keys as
select 'daily' as kind, d.day as key, d.minutes from app.daily_minutes d where d.user_id = test.uid('ada')
union all
select 'weekly', w.week, w.minutes from app.weekly_minutes w where w.user_id = test.uid('ada');
select ok((select count(*) from old_keys o where not exists (select from new_keys n where n = o)) > 0,
          'the zone change moves ada to other keys (the fixture is what it claims)');

-- Written by this transaction (xmin: the update that locks it), before any trigger has run.
create function pg_temp.locked_here(p_kind text, p_key date, p_minutes integer) returns boolean language sql as $$
    select coalesce((select c.xmin::text = pg_current_xact_id()::text from app.daily_minutes_counts c
                     where p_kind = 'daily' and (c.day, c.minutes, c.shard) = (p_key, p_minutes, app.counter_shard(test.uid('ada')))
                     union all
                     select c.xmin::text = pg_current_xact_id()::text from app.weekly_minutes_counts c
                     where p_kind = 'weekly' and (c.week, c.minutes, c.shard) = (p_key, p_minutes, app.counter_shard(test.uid('ada')))),
                    false)
$$;
select ok((select bool_and(pg_temp.locked_here(o.kind, o.key, o.minutes)) from old_keys o),
          'every count row ada leaves is locked by the rebuild itself');
select ok((select bool_and(pg_temp.locked_here(n.kind, n.key, n.minutes)) from new_keys n),
          'every count row ada joins exists and is locked by the rebuild, before the commit''s triggers');

-- The triggers then move the counts as before.
set constraints all immediate;
select is((select count(*) from report.counter_reconciliation r
           where r.counter in ('daily_minutes', 'weekly_minutes', 'daily_minutes_counts', 'weekly_minutes_counts')),
          0::bigint, 'at commit the histogram equals the rollup counted');

select * from finish();
rollback;
