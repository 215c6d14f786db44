-- Profile: GET /me shape and PATCH /me rules.
begin;
select plan(8);
select test.new_user('pro');

select is((select array_agg(k order by k) from jsonb_object_keys((api.me_get(test.token('pro'), '{}', '{}')).body) as k),
          array['age_restricted', 'avatar_version', 'balance', 'bio', 'created_at', 'daily_goal_minutes', 'display_name', 'email', 'email_verified', 'guest', 'has_avatar', 'id', 'pending_email', 'selected', 'settings'],
          'a Profile has exactly the documented keys');
select is(test.error_of($$ select api.me_update(test.token('pro'), '{}', '{"display_name": "Renamed"}') $$), 'ok',
          'display_name can change');
select is((select display_name from app.users where id = test.uid('pro')), 'Renamed', '... and is stored');
select is(test.error_of($$ select api.me_update(test.token('pro'), '{}', '{"settings": {"show_tip_on_timer": false}}') $$), 'ok',
          'the tip setting can change');
select is((select show_tip_on_timer from app.users where id = test.uid('pro')), false, '... and is stored');
select is(test.error_of($$ select api.me_update(test.token('pro'), '{}', '{"nickname": "x"}') $$), 'PT400 invalid_field',
          'an unknown key is 400');
select is(test.error_of($$ select api.me_update(test.token('pro'), '{}', '{"settings": {"show_tip_on_timer": "no"}}') $$),
          'PT400 invalid_field', 'a wrong type is 400');
select is((select display_name || show_tip_on_timer::text from app.users where id = test.uid('pro')),
          'Renamedfalse', 'refused patches changed nothing');

select * from finish();
rollback;
