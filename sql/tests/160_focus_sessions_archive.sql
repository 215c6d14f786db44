-- app.archive_focus_sessions (2026-12-06): two people's sessions of a year ago (three days in a
-- row among them, tagged and rated) and of the last months, the old ones moved in batches of
-- two to app.focus_sessions_archived. Every reader of a person's sessions answers the same
-- before, midway and after: GET /focus-sessions page by page, /me/stats, /me/stats/daily,
-- /me/stats/tags, the export's sessions, the streak and its freezes, the achievements' counts,
-- the rollup (kept, and rebuilt from both) and the counters' recount; the move writes no event
-- and leaves the rollups and the UTC-day totals as they were. A session an earn entry, a room
-- or a tip view points at stays live; run again it moves nothing; an archived id is still
-- taken, by an upload and by the bulk import, which refuses an overlap with an archived session
-- too; an archived session can no longer be rated; erasure blanks the archive's tags.
-- (app.archive_focus_sessions_all commits, which a test's transaction cannot: its loop is this one.)
begin;
select plan(26);
select test.new_user(name, initcap(name) || ' Keeper') from unnest(array['fsa', 'fsb']) name;
select test.made_ago(name, interval '500 days') from unnest(array['fsa', 'fsb']) name;
-- `name`'s session of `minutes` ending at `hour` o'clock UTC `days_ago` days back, id md5(name || days_ago).
create function pg_temp.session(name text, days_ago integer, hour integer, minutes integer) returns uuid language sql as $$
    select test.session(name, test.day_start(days_ago) + make_interval(hours => hour), minutes, md5(name || days_ago)::uuid)
$$;
create function pg_temp.sid(name text, days_ago integer) returns uuid language sql immutable as $$ select md5(name || days_ago)::uuid $$;
select pg_temp.session('fsa', d, 9, 25) from unnest(array[400, 301, 300, 299, 250, 240, 100, 10, 1]) d;
select pg_temp.session('fsb', d, 20, 50) from unnest(array[390, 380, 230, 5]) d;
update app.focus_sessions set tag = 'essay' where id in (pg_temp.sid('fsa', 400), pg_temp.sid('fsa', 300), pg_temp.sid('fsa', 10));
update app.focus_sessions set rating = 'good', rated_at = ended_at where id in (pg_temp.sid('fsa', 301), pg_temp.sid('fsb', 390));
-- What points at old sessions: an earn entry (fsa, 250 days ago), a room's member (fsa, 240),
-- a tip view of a late rating (fsb, 230).
insert into app.coin_ledger (user_id, entry, amount, reason, session_id, created_at)
values (test.uid('fsa'), 'earn', 25, 'archive fixture', pg_temp.sid('fsa', 250), test.day_start(250) + interval '9 hours');
insert into app.rooms (id, code, host_id, planned_minutes, status, created_at, started_at, ended_at)
values (md5('fs room')::uuid, '2345ABCD', test.uid('fsa'), 25, 'completed', test.day_start(240) + interval '8 hours',
        test.day_start(240) + interval '8 hours 35 minutes', test.day_start(240) + interval '9 hours');
insert into app.room_members (room_id, user_id, state, joined_at, session_id, outcome, ended_at)
values (md5('fs room')::uuid, test.uid('fsa'), 'joined', test.day_start(240) + interval '8 hours', pg_temp.sid('fsa', 240),
        'completed', test.day_start(240) + interval '9 hours');
update app.focus_sessions set rating = 'fine', rated_at = now() where id = pg_temp.sid('fsb', 230);
insert into app.tip_views (user_id, tip_id, session_id)
values (test.uid('fsb'), (select t.id from app.mindfulness_tips t where t.rating_level = 'fine' order by t.id limit 1), pg_temp.sid('fsb', 230));
set constraints all immediate;  -- the day totals' deferred trigger, before anything reads them

-- Every page of GET /focus-sessions since 500 days ago, three a page.
create function pg_temp.pages(name text) returns text language plpgsql as $$
declare
    v_params jsonb := jsonb_build_object('from', test.day_start(500), 'limit', '3');
    v_body jsonb;
    v_pages text := '';
begin
    loop
        v_body := (api.focus_sessions_list(test.token(name), v_params, '{}')).body;
        v_pages := v_pages || v_body::text || E'\n';
        exit when v_body ->> 'next_cursor' is null;
        v_params := v_params || jsonb_build_object('cursor', v_body ->> 'next_cursor');
    end loop;
    return v_pages;
end
$$;
create function pg_temp.reader(name text) returns text language sql as $$
    select concat_ws(E'\n',
        pg_temp.pages(name),
        (api.me_stats_get(test.token(name), '{}', '{}')).body::text,
        (api.me_stats_daily_get(test.token(name), jsonb_build_object('from', (now() - interval '365 days')::date), '{}')).body::text,
        (api.me_stats_tags_get(test.token(name), '{}', '{}')).body::text,
        ((api.me_export_get(test.token(name), '{}', '{}')).body -> 'sessions')::text,
        (select format('%s %s', st.current_days, st.longest_days) from app.user_streak(test.uid(name)) st),
        api.streak_freezes_json(test.uid(name), 0)::text,
        app.achievement_value(test.uid(name), 'sessions_completed')::text,
        app.achievement_value(test.uid(name), 'minutes_focused')::text)
$$;
-- The kept counts: the rollup, the UTC-day totals, and their recount.
create function pg_temp.counts() returns text language sql stable as $$
    select concat_ws(E'\n',
        (select string_agg(format('%s %s %s', d.user_id, d.day, d.minutes), ',' order by d.user_id, d.day)
         from app.daily_minutes d where d.user_id in (test.uid('fsa'), test.uid('fsb'))),
        (select string_agg(format('%s %s %s', w.user_id, w.week, w.minutes), ',' order by w.user_id, w.week)
         from app.weekly_minutes w where w.user_id in (test.uid('fsa'), test.uid('fsb'))),
        (select string_agg(t::text, ',' order by t.day, t.source, t.shard) from app.session_day_totals t),
        (select string_agg(d::text, ',' order by d.user_id, d.day) from app.session_user_days d
         where d.user_id in (test.uid('fsa'), test.uid('fsb'))),
        (select coalesce(string_agg(c::text, ','), '') from report.counter_reconciliation_between(
            (test.day_start(420) at time zone 'UTC')::date, (now() at time zone 'UTC')::date) c))
$$;
create function pg_temp.views() returns text language sql as $$
    select concat_ws(E'\n', pg_temp.reader('fsa'), pg_temp.reader('fsb'), pg_temp.counts())
$$;
create temp table seen as select pg_temp.views() as before, pg_temp.counts() as counts;
select is((select count(*)::integer from report.counter_reconciliation_between(
              (test.day_start(420) at time zone 'UTC')::date, (now() at time zone 'UTC')::date)), 0, 'the counters reconcile before');
select is((select st.longest_days from app.user_streak(test.uid('fsa')) st), 3, 'before: the longest streak is the three days of a year ago');
select is(test.error_of($$select api.focus_sessions_create(test.token('fsb'), '{}', jsonb_build_object('id', pg_temp.sid('fsa', 400),
              'started_at', now() - interval '2 hours', 'ended_at', now() - interval '1 hour'))$$),
          'PT409 session_conflict', 'before: a recent session with an old id is a conflict');

-- Refusals.
select throws_ok($$select app.archive_focus_sessions(test.day_start(200) + interval '1 hour', 2)$$, '22023', 'before is a UTC midnight',
                 'a horizon within a day is refused');
select throws_ok($$select app.archive_focus_sessions(test.day_start(10), 2)$$, '22023', 'before is at least 90 days ago',
                 'a horizon within 90 days is refused');
select throws_ok($$select app.archive_focus_sessions(test.day_start(200), 0)$$, '22023', 'batch_size is at least 1',
                 'a batch of none is refused');

-- Batches of two of everyone's old sessions in this database, oldest first.
create temp table old as
select count(*)::integer as sessions from app.focus_sessions s
where s.ended_at < test.day_start(200)
  and not exists (select from app.coin_ledger c where c.session_id = s.id and c.entry = 'earn')
  and not exists (select from app.room_members m where m.session_id = s.id)
  and not exists (select from app.tip_views v where v.session_id = s.id);
create temp table event_mark as select coalesce(max(e.id), 0) as id from app.events e;
select is(app.archive_focus_sessions(test.day_start(200), 2), least(2, (select sessions from old)), 'a batch moves at most batch_size');
select is(pg_temp.views(), (select before from seen), 'midway (interrupted): every reader and every count is the same');
create temp table runs (moved integer);
do $$
begin
    loop
        insert into runs values (app.archive_focus_sessions(test.day_start(200), 2));
        exit when (select r.moved from runs r order by ctid desc limit 1) = 0;
    end loop;
end
$$;
select is((select sum(r.moved)::integer + 2 from runs r), (select sessions from old), 'resumed, every old session is moved once');
select is((select array_agg(s.id order by s.ended_at) from app.focus_sessions s
           where s.user_id in (test.uid('fsa'), test.uid('fsb')) and s.ended_at < test.day_start(200)),
          array[pg_temp.sid('fsa', 250), pg_temp.sid('fsa', 240), pg_temp.sid('fsb', 230)]::uuid[],
          'only the sessions a tip view, an earn entry or a room points at stay live past the horizon');
select is((select count(*)::integer from app.focus_sessions_archived a where a.user_id in (test.uid('fsa'), test.uid('fsb'))), 6,
          'the others are archived');
select is((select count(*)::integer from app.focus_sessions s where s.user_id = test.uid('fsa') and s.ended_at >= test.day_start(200)), 3,
          'the sessions after the horizon stay live');
select is((select format('%s %s %s', a.tag, a.rating, a.minutes) from app.focus_sessions_archived a where a.id = pg_temp.sid('fsa', 300)),
          'essay  25', 'a session is archived as it was');
select is(pg_temp.views(), (select before from seen), 'after: every reader and every count is the same');
select is((select count(*)::integer from app.events e where e.id > (select id from event_mark)), 0, 'the move writes no event');
select is((select count(*)::integer from report.counter_reconciliation), 0, 'the counters reconcile after');

-- The rollup rebuilt (a time zone change does it) reads the archived sessions too.
select app.rebuild_rollup(test.uid('fsa'));
select is(pg_temp.counts(), (select counts from seen), 'the rollup rebuilt from both tables is the same');

-- Run again: nothing to do, nothing changes.
create temp table rows as select a.* from app.focus_sessions_archived a;
select is(app.archive_focus_sessions(test.day_start(200), 2), 0, 'run again once all are moved: none');
select set_eq($$select * from app.focus_sessions_archived$$, $$select * from rows$$, 'the archive is as it was');

-- An archived id stays taken; an archived session is closed.
select is(test.error_of($$select api.focus_sessions_create(test.token('fsb'), '{}', jsonb_build_object('id', pg_temp.sid('fsa', 400),
              'started_at', now() - interval '2 hours', 'ended_at', now() - interval '1 hour'))$$),
          'PT409 session_conflict', 'after: a recent session with an archived id is a conflict, as before');
select is(test.error_of($$select api.focus_sessions_create(test.token('fsa'), '{}', jsonb_build_object('id', pg_temp.sid('fsa', 400),
              'started_at', now() - interval '2 hours', 'ended_at', now() - interval '1 hour'))$$),
          'PT409 session_conflict', 'the owner''s too');
select is(test.error_of($$select api.focus_sessions_rate(test.token('fsa'), jsonb_build_object('id', pg_temp.sid('fsa', 301)), '{"rating": "bad"}')$$),
          'PT404 session_not_found', 'an archived session is not rated again (docs/operations.md)');

-- The bulk import refuses what the archive holds: an id, a person's time.
insert into app.session_import (id, user_id, started_at, ended_at, minutes)
values (pg_temp.sid('fsb', 390), test.uid('fsa'), test.day_start(450), test.day_start(450) + interval '25 minutes', 25);
select throws_ok($$select app.import_sessions(10)$$, '23505', format('focus session %s is archived already', pg_temp.sid('fsb', 390)),
                 'the bulk import refuses an archived id');
update app.session_import set id = md5('fs import')::uuid, user_id = test.uid('fsb'),
    started_at = test.day_start(390) + interval '19 hours 50 minutes', ended_at = test.day_start(390) + interval '20 hours 10 minutes'
where id = pg_temp.sid('fsb', 390);
select throws_ok($$select app.import_sessions(10)$$, '23P01', format('focus session %s overlaps an archived session', md5('fs import')::uuid),
                 'and a session overlapping an archived one of the person''s');
delete from app.session_import where id = md5('fs import')::uuid;

-- Deletion: the tags go from the archive too; the sessions stay with the tombstone.
select api.me_delete(test.token('fsa'), '{}', '{"password": "correct horse"}');
select is((select count(*)::integer from app.focus_sessions_archived a where a.user_id = test.uid('fsa') and a.tag is not null), 0,
          'erasure blanks the archived sessions'' tags');
select is(test.columns_holding(array['fsa@example.com', 'Fsa Keeper']), '{}', 'a deleted account''s name and email are nowhere');
select * from finish();
rollback;
