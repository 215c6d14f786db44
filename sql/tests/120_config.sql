-- GET /config: the release controls and the economy from their rows, an ETag that moves
-- exactly with the answer, and a config.changed broadcast for every DBA's statement.
begin;
select plan(17);

create temporary table before on commit drop as select * from api.config_get(null, '{}', '{}');
select is((select status from before), null, 'GET /config answers the route''s 200');
select is((select array(select jsonb_object_keys(body) order by 1) from before),
          array['api_version', 'economy', 'features', 'limits', 'maintenance', 'platforms'], 'its parts');
select is((select body -> 'platforms' -> 'ios' -> 'min_version' from before),
          (select to_jsonb(p.min_version) from app.client_platforms p where p.platform = 'ios'), 'the iOS minimum from its row');
select is((select body -> 'economy' -> 'min_minutes_to_earn' from before),
          (select to_jsonb(e.min_minutes_to_earn) from app.economy_settings e), 'the earning threshold from its row');
select is((select concat_ws(' ', body -> 'economy' ->> 'offline_max_age_days', body -> 'limits' ->> 'avatar_max_bytes',
                            body -> 'limits' ->> 'max_planned_minutes', body ->> 'api_version') from before),
          concat_ws(' ', (select extract(day from e.offline_max_age)::text from app.economy_settings e), '262144', '1440', api.api_version()),
          'days back, avatar bytes, the largest plan a record may state, the API version');
select is((select concat_ws(' ', r.body::text, r.etag) from api.config_get(null, '{}', '{}') r),
          (select concat_ws(' ', body::text, etag) from before), 'the same answer and ETag while nothing changes');

-- A DBA's one update: the answer, its ETag and a broadcast event follow in the same transaction.
select test.new_events();
update app.economy_settings set min_minutes_to_earn = min_minutes_to_earn + 5;
select is((api.config_get(null, '{}', '{}')).body -> 'economy' -> 'min_minutes_to_earn',
          (select to_jsonb((body -> 'economy' ->> 'min_minutes_to_earn')::integer + 5) from before), 'raising the threshold shows at once');
select isnt((api.config_get(null, '{}', '{}')).etag, (select etag from before), '... with another ETag');
select is(test.new_events(), array['* config.changed'], '... and one config.changed for everyone');
update app.client_platforms set min_version = '1.3.0', latest_version = '1.4.2' where platform = 'ios';
update app.release_settings set maintenance = true, maintenance_message = 'Back at noon.', feature_flags = '{"focus_rooms": true}';
select is(test.new_events(), array['* config.changed', '* config.changed'], 'platforms and release settings announce too');
select is((select concat_ws(' ', r.body -> 'platforms' -> 'ios' ->> 'min_version', r.body -> 'maintenance' ->> 'active',
                            r.body -> 'maintenance' ->> 'message', r.body -> 'features' ->> 'focus_rooms')
           from api.config_get(null, '{}', '{}') r),
          '1.3.0 true Back at noon. true', 'the minimum, maintenance with its message, a feature flag');

-- The rows refuse what the server could not compare or serve.
select throws_ok($$ update app.client_platforms set min_version = '1.3.0-beta' where platform = 'ios' $$, '23514', null,
                 'a version is one to three numbers');
select throws_ok($$ update app.client_platforms set min_version = '2.0' where platform = 'ios' $$, '23514', null,
                 'the minimum is never above the latest');
select throws_ok($$ update app.client_platforms set store_url = 'http://example.com' where platform = 'ios' $$, '23514', null,
                 'a store URL is https');
select throws_ok($$ update app.release_settings set feature_flags = '{"rooms": "yes"}' $$, '23514', null,
                 'a feature flag is true or false');
select throws_ok($$ update app.release_settings set feature_flags = '{"Focus Rooms": true}' $$, '23514', null,
                 'a flag''s name is snake_case');

select is(array[app.client_version_key('1')::text, app.client_version_key('1.10')::text, app.client_version_key('1.9.9')::text,
                coalesce(app.client_version_key('1.2.3.4')::text, '-'), coalesce(app.client_version_key('v1')::text, '-'),
                coalesce(app.client_version_key('123456')::text, '-')],
          array['{1,0,0}', '{1,10,0}', '{1,9,9}', '-', '-', '-'],
          'versions compare by number with missing parts 0; anything else has no key');

select * from finish();
rollback;
