-- Each paged list's order is served by an index (migration 0022): the page after a cursor is an
-- index range read of `limit` + 1 rows, with no sort of the whole list and no OFFSET. The
-- queries are the lists' own, with the cursor's values in place; seq scans are off while each
-- query is planned (pg_temp.check's own settings) so the answer does not depend on how few rows
-- a test database holds. Only there: with them off for the whole file, building its fixture
-- (a user, 300 sessions) took 56 s instead of 1 (every statement of the triggers planned without
-- seq scans), a quarter of a clock's pgTAP time (2026-12-01).
begin;
select plan(6);
-- Fresh statistics: the tables have just seen other files' rolled-back rows, and the plan must
-- not depend on what autovacuum last read.
analyze app.friendships, app.blocks, app.focus_sessions, app.user_reports;
create function pg_temp.served(query text, index_name text) returns boolean language sql as $$
    select test.plan_of(query, 'costs off') ~ ('Index (Only )?Scan( Backward)? using ' || index_name || ' ')
       and test.plan_of(query, 'costs off') !~ 'Sort'
$$;
-- ok(), and the plan as a diagnostic when it fails; seq and bitmap scans off while it runs.
create function pg_temp.check(query text, index_name text, description text) returns setof text language plpgsql
set enable_seqscan = off set enable_bitmapscan = off as $$
begin
    return next ok(pg_temp.served(query, index_name), description);
    if not pg_temp.served(query, index_name) then
        return next diag(test.plan_of(query, 'costs off'));
    end if;
end
$$;

select pg_temp.check($$ select f from app.friendships f
    where f.user_low = '00000000-0000-4000-8000-000000000001' and f.status = 'accepted'
      and (f.accepted_at, f.id) > ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by f.accepted_at, f.id limit 51 $$, 'friendships_low_accepted', 'friends, the low side: friendships_low_accepted');
select pg_temp.check($$ select f from app.friendships f
    where f.user_high = '00000000-0000-4000-8000-000000000001' and f.status = 'accepted'
      and (f.accepted_at, f.id) > ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by f.accepted_at, f.id limit 51 $$, 'friendships_high_accepted', 'friends, the high side: friendships_high_accepted');
select pg_temp.check($$ select b from app.blocks b
    where b.blocker = '00000000-0000-4000-8000-000000000001'
      and (b.created_at, b.blocked) < ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by b.created_at desc, b.blocked desc limit 51 $$, 'blocks_blocker_time', 'blocks: blocks_blocker_time');
-- A history of some length (300 sessions an hour apart), so the planner weighs a page of 51
-- against sorting what a user has, as it does in production; the statistics of an almost empty
-- table made it sort one estimated row.
select test.new_user('pat');
select count(test.session('pat', test.day_start(1) - make_interval(hours => g), 20)) from generate_series(1, 300) g;
analyze app.focus_sessions;
select pg_temp.check(format($$ select s from app.focus_sessions s
    where s.user_id = %L
      and s.started_at >= %L and s.started_at < 'infinity'
      and (s.started_at, s.id) < (%L, '00000000-0000-4000-8000-000000000002')
    order by s.started_at desc, s.id desc limit 51 $$, test.uid('pat'), test.day_start(30), test.day_start(2)),
    'focus_sessions_user_start', 'sessions: focus_sessions_user_start');
-- The sessions archived past the horizon (0055) are a second such read, by their own index; the
-- list sorts only the two pages it read (api.focus_sessions_list).
analyze app.focus_sessions_archived;
select pg_temp.check(format($$ select a from app.focus_sessions_archived a
    where a.user_id = %L
      and a.started_at >= %L and a.started_at < 'infinity'
      and (a.started_at, a.id) < (%L, '00000000-0000-4000-8000-000000000002')
    order by a.started_at desc, a.id desc limit 51 $$, test.uid('pat'), test.day_start(30), test.day_start(2)),
    'focus_sessions_archived_user_start', 'archived sessions: focus_sessions_archived_user_start');
select pg_temp.check($$ select r from app.user_reports r
    where r.status = 'open' and r.reported = '00000000-0000-4000-8000-000000000001'
      and (r.created_at, r.id) > ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by r.created_at, r.id limit 51 $$, 'user_reports_reported_status', 'reports about one user: user_reports_reported_status');

select * from finish();
rollback;
