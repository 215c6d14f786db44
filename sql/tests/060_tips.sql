-- Ratings and tips: the tip's level matches, rotation without repeats, tips recorded, sync.
begin;
select plan(9);
create temporary table rater on commit drop as select test.new_user('rate@example.com') as account;
create function pg_temp.token() returns text language sql as $$ select account ->> 'token' from rater $$;
-- 13 finished sessions to rate.
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
select md5('rate' || n)::uuid, test.user_id(account), 'offline', now() - make_interval(hours => n + 1),
       now() - make_interval(hours => n + 1) + interval '30 minutes',
       tstzrange(now() - make_interval(hours => n + 1), now() - make_interval(hours => n + 1) + interval '30 minutes'), 30
from rater, generate_series(1, 13) n;
create function pg_temp.rate(n integer, rating text) returns api.reply language sql as
$$ select api.rate_session(pg_temp.token(), jsonb_build_object('id', md5('rate' || n)::uuid), jsonb_build_object('rating', rating)) $$;

select is((pg_temp.rate(1, 'bad')).body -> 'tip' ->> 'rating_level', 'bad', 'a bad session gets a tip for stressful moments');
select is((pg_temp.rate(2, 'good')).body -> 'tip' ->> 'rating_level', 'good', 'a good session gets a tip for calm ones');
select is((select rating from app.focus_sessions where id = md5('rate1')::uuid), 'bad', 'the rating is stored');

create temporary table shown on commit drop as
select n, (pg_temp.rate(n, 'fine')).body -> 'tip' ->> 'id' as tip_id from generate_series(3, 13) n;
select is((select count(distinct tip_id)::integer from shown where n <= 13), 11, 'eleven fine ratings show eleven different tips');
select is((select count(*)::integer from app.tip_views v join app.mindfulness_tips t on t.id = v.tip_id
           where v.user_id = (select test.user_id(account) from rater) and t.rating_level = 'fine'), 11, 'every tip shown is recorded');
select is((pg_temp.rate(3, 'fine')).body -> 'tip' ->> 'id',
          (select t.id::text from app.mindfulness_tips t where t.rating_level = 'fine' and t.id::text not in (select tip_id from shown)),
          'the twelfth is the one fine tip not yet shown');

select is(test.error_of(format('select api.rate_session(%L, %L, ''{"rating": "great"}'')', pg_temp.token(),
                               jsonb_build_object('id', md5('rate1')::uuid))), 'PT400 invalid_field', 'an unknown rating is invalid_field');

select is((select jsonb_array_length((api.sync_tips(null, '{}', jsonb_build_object('known_ids',
               (select jsonb_agg(id) from (select id from app.mindfulness_tips where active order by id limit 18) half)))).body -> 'missing')),
          (select count(*)::integer - 18 from app.mindfulness_tips where active), 'a phone with half the tips gets the other half');
select is((api.sync_tips(null, '{}', '{"known_ids": ["00000000-0000-0000-0000-00000000000f"]}')).body -> 'removed',
          '["00000000-0000-0000-0000-00000000000f"]'::jsonb, 'a stale id comes back as removed');

select * from finish();
rollback;
