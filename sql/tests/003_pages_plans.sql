-- Each paged list's order is served by an index (migration 0022): the page after a cursor is an
-- index range read of `limit` + 1 rows, with no sort of the whole list and no OFFSET. The
-- queries are the lists' own, with the cursor's values in place; seq scans are off so the
-- answer does not depend on how few rows a test database holds.
begin;
select plan(5);
set local enable_seqscan = off;
set local enable_bitmapscan = off;
create function pg_temp.served(query text, index_name text) returns boolean language sql as $$
    select test.plan_of(query, 'costs off') ~ ('Index (Only )?Scan( Backward)? using ' || index_name || ' ')
       and test.plan_of(query, 'costs off') !~ 'Sort'
$$;

select ok(pg_temp.served($$ select f from app.friendships f
    where f.user_low = '00000000-0000-4000-8000-000000000001' and f.status = 'accepted'
      and (f.accepted_at, f.id) > ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by f.accepted_at, f.id limit 51 $$, 'friendships_low_accepted'), 'friends, the low side: friendships_low_accepted');
select ok(pg_temp.served($$ select f from app.friendships f
    where f.user_high = '00000000-0000-4000-8000-000000000001' and f.status = 'accepted'
      and (f.accepted_at, f.id) > ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by f.accepted_at, f.id limit 51 $$, 'friendships_high_accepted'), 'friends, the high side: friendships_high_accepted');
select ok(pg_temp.served($$ select b from app.blocks b
    where b.blocker = '00000000-0000-4000-8000-000000000001'
      and (b.created_at, b.blocked) < ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by b.created_at desc, b.blocked desc limit 51 $$, 'blocks_blocker_time'), 'blocks: blocks_blocker_time');
select ok(pg_temp.served($$ select s from app.focus_sessions s
    where s.user_id = '00000000-0000-4000-8000-000000000001'
      and s.started_at >= '2026-11-01T00:00:00Z' and s.started_at < 'infinity'
      and (s.started_at, s.id) < ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by s.started_at desc, s.id desc limit 51 $$, 'focus_sessions_user_start'), 'sessions: focus_sessions_user_start');
select ok(pg_temp.served($$ select r from app.user_reports r
    where r.status = 'open' and r.reported = '00000000-0000-4000-8000-000000000001'
      and (r.created_at, r.id) > ('2026-11-30T00:00:00Z', '00000000-0000-4000-8000-000000000002')
    order by r.created_at, r.id limit 51 $$, 'user_reports_reported_status'), 'reports about one user: user_reports_reported_status');

select * from finish();
rollback;
