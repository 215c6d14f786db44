-- A session's tag: optional at start and at offline upload (alone or in a batch), stored in one
-- normal form (NFC, trimmed, single spaces, lower case, 1 to 32 characters), refused with 400
-- before the table's CHECK would; a replay may leave it out but not change it; GET /me/stats/tags
-- sums minutes and sessions by tag over a range of local days, untagged as tag null.
begin;
select plan(24);
select test.new_user(name) from unnest(array['tia', 'uma']) as name;
create function pg_temp.start(body jsonb, name text default 'tia') returns text language sql as $$
    select test.error_of(format($f$ select api.focus_sessions_start(test.token(%L), '{}', %L) $f$, name, body))
$$;
create function pg_temp.offline(id uuid, ends_at timestamptz, tag text, name text default 'tia') returns api.reply language sql as $$
    select api.focus_sessions_create(test.token(name), '{}',
        jsonb_build_object('id', id, 'started_at', api.iso(ends_at - interval '25 minutes'), 'ended_at', api.iso(ends_at))
        || case when tag is null then '{}' else jsonb_build_object('tag', tag) end)
$$;
create function pg_temp.tags(params jsonb, name text default 'tia') returns jsonb language sql as $$
    select (api.me_stats_tags_get(test.token(name), params, '{}')).body -> 'tags'
$$;

-- At start.
select is(((api.focus_sessions_start(test.token('tia'), '{}', jsonb_build_object('planned_minutes', 25, 'tag', E'  Deep \t  WORK  ')))
           .body -> 'session' ->> 'tag'), 'deep work', 'a tag at start is trimmed, its spaces made one, lower-cased');
select is((select tag from app.focus_sessions where user_id = test.uid('tia')), 'deep work', '... and stored so');
-- One transaction, one moment: the next start would overlap a session ended now.
delete from app.focus_sessions where user_id in (test.uid('tia'), test.uid('uma'));
select is(((api.focus_sessions_start(test.token('uma'), '{}', '{"planned_minutes": 25, "tag": "   "}')).body -> 'session' -> 'tag'),
          'null'::jsonb, 'a tag of only spaces is no tag');
select is(((api.focus_sessions_start(test.token('tia'), '{}', '{"planned_minutes": 25}')).body -> 'session' -> 'tag'),
          'null'::jsonb, 'no tag: null');
delete from app.focus_sessions where user_id in (test.uid('tia'), test.uid('uma'));
select is(pg_temp.start(jsonb_build_object('planned_minutes', 25, 'tag', repeat('x', 33))), 'PT400 invalid_field', '33 characters: 400 invalid_field');
select is(pg_temp.start(jsonb_build_object('planned_minutes', 25, 'tag', 'a' || U&'\200B' || 'b')), 'PT400 invalid_field',
          'an invisible character: 400 invalid_field');
select is(pg_temp.start(jsonb_build_object('planned_minutes', 25, 'tag', 'a' || chr(7))), 'PT400 invalid_field', 'a control character: 400 invalid_field');
select is(pg_temp.start('{"planned_minutes": 25, "tag": 7}'), 'PT400 invalid_field', 'a number: 400 invalid_field');
select is((select count(*) from app.focus_sessions where user_id in (test.uid('tia'), test.uid('uma'))), 0::bigint, '... and no refused start stored a session');
select is(pg_temp.start(jsonb_build_object('planned_minutes', 25, 'tag', repeat('É', 32))), 'ok', '32 letters, any script: ok');
select is((select tag from app.focus_sessions where user_id = test.uid('tia')), repeat('é', 32), '... lower-cased');
delete from app.focus_sessions where user_id in (test.uid('tia'), test.uid('uma'));
select throws_ok($$ insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, occupies, tag)
                    values (gen_random_uuid(), test.uid('tia'), 'live', 25, now(), tstzrange(now(), null), 'Math') $$,
                 '23514', null, 'the table refuses a tag not in its normal form (focus_sessions_tag_check)');

select is(array(select app.session_tag_is_clean(t) from unnest(array['deep work', 'é', repeat('x', 32)]) t), array[true, true, true],
          'the normal form: lower case, single spaces, up to 32 characters');
select is(array(select app.session_tag_is_clean(t) from unnest(array['Deep', 'a  b', ' a', 'a ', '', repeat('x', 33), 'a' || U&'\200B' || 'b']) t),
          array[false, false, false, false, false, false, false],
          'not the normal form: upper case, two spaces, a space at an end, empty, 33 characters, an invisible character');

-- Offline, replays, batch.
select is((pg_temp.offline('00000000-0000-4000-8000-0000000000a1', test.day_start(), 'Math')).body -> 'session' ->> 'tag', 'math',
          'an offline session carries its tag');
select is((pg_temp.offline('00000000-0000-4000-8000-0000000000a1', test.day_start(), null)).status, 200,
          'its replay without the tag is the same session (200)');
select is(test.error_of($$ select pg_temp.offline('00000000-0000-4000-8000-0000000000a1', test.day_start(), 'reading') $$),
          'PT409 session_conflict', 'its replay with another tag is 409 session_conflict');
select is((api.focus_sessions_batch_create(test.token('tia'), '{}', jsonb_build_object('sessions', jsonb_build_array(
              jsonb_build_object('id', '00000000-0000-4000-8000-0000000000a2', 'started_at', api.iso(test.day_start(1) - interval '30 minutes'),
                                 'ended_at', api.iso(test.day_start(1)), 'tag', 'Reading'),
              jsonb_build_object('id', '00000000-0000-4000-8000-0000000000a3', 'started_at', api.iso(test.day_start(1) - interval '2 hours'),
                                 'ended_at', api.iso(test.day_start(1) - interval '1 hour'), 'tag', repeat('y', 40)))))).body
           #>> '{results,0,body,session,tag}', 'reading',
          'a batch item carries its tag');
select is((select count(*) from app.focus_sessions where id = '00000000-0000-4000-8000-0000000000a3'), 0::bigint,
          '... and an item with a bad tag is refused alone');

-- Stats by tag.
select pg_temp.offline('00000000-0000-4000-8000-0000000000a4', test.day_start() - interval '1 hour', 'math');
select pg_temp.offline('00000000-0000-4000-8000-0000000000a5', test.day_start() - interval '2 hours', null);
select is(pg_temp.tags('{}'), jsonb_build_array(
              jsonb_build_object('tag', 'math', 'minutes', 50, 'sessions', 2),
              jsonb_build_object('tag', 'reading', 'minutes', 30, 'sessions', 1),
              jsonb_build_object('tag', null, 'minutes', 25, 'sessions', 1)),
          'by tag, most minutes first, untagged as tag null');
select is(pg_temp.tags(jsonb_build_object('from', api.local_date('UTC', now()), 'to', api.local_date('UTC', now()))),
          jsonb_build_array(jsonb_build_object('tag', 'math', 'minutes', 25, 'sessions', 1)),
          'from=to=today: only what ended today (local), at its midnight');
select is(pg_temp.tags('{}', 'uma'), '[]'::jsonb, 'nobody else''s sessions: an empty list');
select is(test.error_of($$ select api.me_stats_tags_get(test.token('tia'), '{"from": "2026-12-02", "to": "2026-12-01"}', '{}') $$),
          'PT400 invalid_date_range', 'from after to is 400 invalid_date_range');
select is(test.error_of($$ select api.me_stats_tags_get(test.token('tia'), '{"from": "yesterday"}', '{}') $$),
          'PT400 invalid_field', 'a date that is not YYYY-MM-DD is 400 invalid_field');

select * from finish();
rollback;
