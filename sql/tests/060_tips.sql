-- Ratings and tips: the tip's level matches, rotation without repeats, tips recorded, sync.
begin;
select plan(10);
select test.new_user('rater');
-- 13 finished sessions to rate, yesterday from 01:00 to 13:30 UTC (over whenever the suite runs).
select test.session('rater', test.day_start(1) + make_interval(hours => n, mins => 30), 30, md5('rate' || n)::uuid)
from generate_series(1, 13) n;

select is((api.focus_sessions_rate(test.token('rater'), jsonb_build_object('id', md5('rate1')::uuid), '{"rating": "bad"}')).body -> 'tip' ->> 'rating_level',
          'bad', 'a bad session gets a tip for stressful moments');
select is((api.focus_sessions_rate(test.token('rater'), jsonb_build_object('id', md5('rate2')::uuid), '{"rating": "good"}')).body -> 'tip' ->> 'rating_level',
          'good', 'a good session gets a tip for calm ones');
select is((select rating from app.focus_sessions where id = md5('rate1')::uuid), 'bad', 'the rating is stored');

create temporary table shown on commit drop as
select n, (api.focus_sessions_rate(test.token('rater'), jsonb_build_object('id', md5('rate' || n)::uuid), '{"rating": "fine"}')).body -> 'tip' ->> 'id' as tip_id
from generate_series(3, 13) n;
select is((select count(distinct tip_id)::integer from shown), 11, 'eleven fine ratings show eleven different tips');
select is((select count(*)::integer from app.tip_views v join app.mindfulness_tips t on t.id = v.tip_id
           where v.user_id = test.uid('rater') and t.rating_level = 'fine'), 11, 'every tip shown is recorded');
-- rate1 was rated bad: rating it fine is a new rating (the same rating again would be a retry).
select is((api.focus_sessions_rate(test.token('rater'), jsonb_build_object('id', md5('rate1')::uuid), '{"rating": "fine"}')).body -> 'tip' ->> 'id',
          (select t.id::text from app.mindfulness_tips t where t.rating_level = 'fine' and t.id::text not in (select tip_id from shown)),
          'the twelfth is the one fine tip not yet shown');

select is(test.error_of($$ select api.focus_sessions_rate(test.token('rater'), jsonb_build_object('id', md5('rate1')::uuid), '{"rating": "great"}') $$),
          'PT400 invalid_field', 'an unknown rating is invalid_field');
select is(test.error_of($$ select api.focus_sessions_rate(test.token('rater'), jsonb_build_object('id', gen_random_uuid()), '{"rating": "good"}') $$),
          'PT404 session_not_found', 'rating a session that does not exist is session_not_found');

select is((select jsonb_array_length((api.mindfulness_tips_sync(null, '{}', jsonb_build_object('known_ids',
               (select jsonb_agg(id) from (select id from app.mindfulness_tips where active order by id limit 18) half)))).body -> 'missing')),
          (select count(*)::integer - 18 from app.mindfulness_tips where active), 'a phone with half the tips gets the other half');
select is((api.mindfulness_tips_sync(null, '{}', '{"known_ids": ["00000000-0000-0000-0000-00000000000f"]}')).body -> 'removed',
          '["00000000-0000-0000-0000-00000000000f"]'::jsonb, 'a stale id comes back as removed');

select * from finish();
rollback;
