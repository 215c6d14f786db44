-- Rating again with the same rating (a retry) returns the same tip and records nothing; the
-- original app's body at the seed's path gets the original app's answer.
begin;
select plan(10);
select test.new_user('ann');
select test.session('ann', test.day_start(1) + interval '2 hours', 30, md5('retry1')::uuid);
create temporary table first on commit drop as
select (api.focus_sessions_rate(test.token('ann'), jsonb_build_object('id', md5('retry1')::uuid), '{"rating": "fine"}')).body as body;
select is((api.focus_sessions_rate(test.token('ann'), jsonb_build_object('id', md5('retry1')::uuid), '{"rating": "fine"}')).body,
          (select body from first), 'the same rating again answers the same session and tip');
select is((select count(*)::integer from app.tip_views where user_id = test.uid('ann')), 1, '... and marks no other tip seen');
select isnt((api.focus_sessions_rate(test.token('ann'), jsonb_build_object('id', md5('retry1')::uuid), '{"rating": "bad"}')).body -> 'tip',
            (select body -> 'tip' from first), 'another rating is a new rating with a new tip');

-- {"itemIds": [...]}, its name in any letter case.
select is((select jsonb_array_length(r.body -> 'missingItems') from api.mindfulness_tips_sync(null, '{}', '{"itemIds": []}') r),
          (select count(*)::integer from app.mindfulness_tips where active), 'itemIds [] gets every active tip as missingItems');
select is((select array(select jsonb_object_keys(r.body -> 'missingItems' -> 0) order by 1) from api.mindfulness_tips_sync(null, '{}', '{"ItemIds": []}') r),
          array['content', 'id', 'sessionRatingLevel', 'title'], 'ItemIds too; each item is {id, title, content, sessionRatingLevel}');
select is((select array(select distinct e ->> 'sessionRatingLevel' from jsonb_array_elements(r.body -> 'missingItems') e order by 1)
           from api.mindfulness_tips_sync(null, '{}', '{"itemids": []}') r),
          array['Bad', 'Fine', 'Good'], 'levels are written Good, Fine, Bad');
select is((select jsonb_array_length(r.body -> 'missingItems')
           from api.mindfulness_tips_sync(null, '{}', jsonb_build_object('itemIds', (select jsonb_agg(id) from (select id from app.mindfulness_tips where active limit 5) t))) r),
          (select count(*)::integer - 5 from app.mindfulness_tips where active), 'known ids are left out');
select is((select r.body ->> 'kind' from api.mindfulness_tips_sync(null, '{}', '{"itemIds": []}') r), 'original_tip_sync',
          'the original app''s answer names its shape in kind (the discriminator)');
select is((select r.body ->> 'kind' from api.mindfulness_tips_sync(null, '{}', '{"known_ids": []}') r), 'tip_sync',
          '... and so does ours, {kind, missing, removed}');
select is(test.error_of($$ select api.mindfulness_tips_sync(null, '{}', '{"itemIds": ["nope"]}') $$), 'PT400 invalid_field',
          'a malformed id is invalid_field');

select * from finish();
rollback;
