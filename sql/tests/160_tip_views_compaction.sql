-- app.compact_tip_views (2026-12-06): two people's tip views of a year ago and of the last
-- months, compacted in batches of five to one row per person and tip. The tip the next rating
-- would choose, report.tips_shown_per_level and the export's count per tip (and each tip's
-- newest view) are the same before, midway and after; run again it compacts nothing; views after
-- the horizon stay; a retry of the session of a kept view still answers its tip; an account's
-- deletion leaves its rows tied to the tombstone, as its live views, naming nobody.
-- (app.compact_tip_views_all commits, which a test's transaction cannot: its loop is this one.)
begin;
select plan(21);
select test.new_user(name, initcap(name) || ' Reader') from unnest(array['tipa', 'tipb']) name;
select test.made_ago(name, interval '500 days') from unnest(array['tipa', 'tipb']) name;
-- The active fine tips, numbered.
create temp table tips as
select row_number() over (order by t.id)::integer as n, t.id from app.mindfulness_tips t where t.rating_level = 'fine' and t.active;
-- A view of tip n, `days_ago` days back at `hour` (each person its own hour), after a session
-- rated fine that it followed.
create function pg_temp.view(name text, n integer, days_ago integer, hour integer) returns void language sql as $$
    with s as (select test.session(name, test.day_start(days_ago) + make_interval(hours => hour), 25) as id)
    insert into app.tip_views (user_id, tip_id, session_id, shown_at)
    select test.uid(name), (select t.id from tips t where t.n = view.n), s.id, test.day_start(days_ago) + make_interval(hours => hour, secs => 1)
    from s;
    update app.focus_sessions set rating = 'fine', rated_at = ended_at where user_id = test.uid(name) and rating is null;
$$;
-- tipa saw every fine tip n twice before the horizon (200 days): 400 - n and 250 + n days ago, so
-- by the newest view the least recently shown is the last tip (by the oldest it would be the
-- first); the first three once more 100 - n days ago. tipb saw every fine tip three times.
select pg_temp.view('tipa', n, 400 - n, 1), pg_temp.view('tipa', n, 250 + n, 1) from tips;
select pg_temp.view('tipa', n, 100 - n, 1) from tips where n <= 3;
select pg_temp.view('tipb', n, d - n, 2) from tips, unnest(array[390, 330, 270]) d;
-- Sessions to rate next (yesterday), and a retry of the session of tipa's newest old view of tip 1.
select test.session('tipa', test.day_start(1) + interval '5 hours', 25, md5('tipa next')::uuid);
select test.session('tipb', test.day_start(1) + interval '6 hours', 25, md5('tipb next')::uuid);
create temp table kept as
select v.session_id, v.tip_id from app.tip_views v
where v.user_id = test.uid('tipa') and v.shown_at = test.day_start(251) + interval '1 hour 1 second';
create temp table folded as
select v.session_id, v.tip_id from app.tip_views v
where v.user_id = test.uid('tipa') and v.shown_at = test.day_start(399) + interval '1 hour 1 second';

-- The tip a fine rating of `session` would show `name`, rating rolled back.
create function pg_temp.next_tip(name text, session uuid) returns text language plpgsql as $$
begin
    raise exception using message = coalesce((api.focus_sessions_rate(test.token(name), jsonb_build_object('id', session),
                                                                      '{"rating": "fine"}')).body -> 'tip' ->> 'id', 'none');
exception when raise_exception then
    return sqlerrm;
end
$$;
-- The export's tips shown per tip: how many (the entries and their earlier_views), the newest's session and time.
create function pg_temp.export_counts(name text) returns text language sql stable as $$
    select string_agg(format('%s %s %s %s', x.tip, x.shown, x.session_id, x.shown_at), ',' order by x.tip)
    from (select e -> 'tip' ->> 'id' as tip, sum(1 + (e ->> 'earlier_views')::integer) as shown,
                 (array_agg(e ->> 'session_id' order by e ->> 'shown_at' desc))[1] as session_id, max(e ->> 'shown_at') as shown_at
          from jsonb_array_elements((api.me_export_get(test.token(name), '{}', '{}')).body -> 'tips_shown') e
          group by 1) x
$$;
create function pg_temp.views() returns text language sql as $$
    select concat_ws(E'\n',
        pg_temp.next_tip('tipa', md5('tipa next')::uuid), pg_temp.next_tip('tipb', md5('tipb next')::uuid),
        (select string_agg(r::text, ',' order by r.rating_level) from report.tips_shown_per_level r),
        pg_temp.export_counts('tipa'), pg_temp.export_counts('tipb'))
$$;
create temp table seen as select pg_temp.views() as before;
create temp table exported as
select e - 'earlier_views' as entry from jsonb_array_elements((api.me_export_get(test.token('tipa'), '{}', '{}')).body -> 'tips_shown') e;
select is(pg_temp.next_tip('tipa', md5('tipa next')::uuid), (select t.id::text from tips t order by t.n desc limit 1),
          'before: the least recently shown by its newest view is chosen');
select is((api.focus_sessions_rate(test.token('tipa'), jsonb_build_object('id', (select session_id from folded)), '{"rating": "fine"}')).body -> 'tip' ->> 'id',
          (select tip_id::text from folded), 'before: a retry of an old session answers its tip');

-- Refusals.
select throws_ok($$select app.compact_tip_views(test.day_start(200) + interval '1 hour', 5)$$, '22023', 'before is a UTC midnight',
                 'a horizon within a day is refused');
select throws_ok($$select app.compact_tip_views(test.day_start(10), 5)$$, '22023', 'before is at least 90 days ago',
                 'a horizon within 90 days is refused');
select throws_ok($$select app.compact_tip_views(test.day_start(200), 0)$$, '22023', 'batch_size is at least 1',
                 'a batch of none is refused');

-- Batches of five, oldest first, of everyone's views in this database.
create temp table old as select count(*)::integer as views from app.tip_views v where v.shown_at < test.day_start(200);
select is(app.compact_tip_views(test.day_start(200), 5), least(5, (select views from old)), 'a batch compacts at most batch_size');
select is(pg_temp.views(), (select before from seen), 'midway (interrupted): the tip chosen, the report and the export''s counts are the same');
create temp table runs (moved integer);
do $$
begin
    loop
        insert into runs values (app.compact_tip_views(test.day_start(200), 5));
        exit when (select r.moved from runs r order by ctid desc limit 1) = 0;
    end loop;
end
$$;
select is((select sum(r.moved)::integer + 5 from runs r), (select views from old), 'resumed, every old view is compacted once');
select is((select count(*)::integer from app.tip_views v where v.shown_at < test.day_start(200)), 0, 'no old view is left live');
select is((select count(*)::integer from app.tip_views v where v.user_id = test.uid('tipa')), 3, 'the views after the horizon stay live');
select is((select format('%s rows, %s views each', count(*), string_agg(distinct c.views::text, ',')) from app.tip_views_compacted c
           where c.user_id = test.uid('tipb')),
          format('%s rows, 3 views each', (select count(*) from tips)), 'one row per person and tip, with how many views');
select is((select c.session_id from app.tip_views_compacted c where c.user_id = test.uid('tipa') and c.tip_id = (select tip_id from kept)),
          (select session_id from kept), 'the row is the newest view');
select is(pg_temp.views(), (select before from seen), 'after: the tip chosen, the report and the export''s counts are the same');
select is((select count(*)::integer
           from jsonb_array_elements((api.me_export_get(test.token('tipa'), '{}', '{}')).body -> 'tips_shown') e
           where e - 'earlier_views' not in (select entry from exported)), 0,
          'every entry the export still lists is as it was');
select is((api.focus_sessions_rate(test.token('tipa'), jsonb_build_object('id', (select session_id from kept)), '{"rating": "fine"}')).body -> 'tip' ->> 'id',
          (select tip_id::text from kept), 'a retry of the session of a kept view answers its tip');
select is((api.focus_sessions_rate(test.token('tipa'), jsonb_build_object('id', (select session_id from folded)), '{"rating": "fine"}')).body -> 'tip',
          'null'::jsonb, 'a retry of the session of a folded view answers without its tip (as written in docs/operations.md)');

-- Run again: nothing to do, nothing changes.
create temp table rows as select c.* from app.tip_views_compacted c;
select is(app.compact_tip_views(test.day_start(200), 5), 0, 'run again once all are compacted: none');
select is(app.compact_tip_views(test.day_start(300), 5), 0, 'an earlier horizon: none');
select set_eq($$select * from app.tip_views_compacted$$, $$select * from rows$$, 'the rows are as they were');

-- Deletion: tipb's rows stay tied to the tombstone as its live views do; the report is the same.
select api.me_delete(test.token('tipb'), '{}', '{"password": "correct horse"}');
select is(test.columns_holding(array['tipb@example.com', 'Tipb Reader']), '{}', 'a deleted account''s name and email are nowhere');
select is((select string_agg(r::text, ',' order by r.rating_level) from report.tips_shown_per_level r),
          split_part((select before from seen), E'\n', 3), 'after a deletion the report is the same');
select * from finish();
rollback;
