-- Profile: GET /me shape and PATCH /me rules.
begin;
select plan(8);
create temporary table account on commit drop as select test.new_user('pro@example.com', 'Pro') as body;
create function pg_temp.patch(body jsonb) returns text language sql as
$$ select test.error_of(format('select api.update_me(%L, ''{}'', %L)', (select a.body ->> 'token' from account a), body)) $$;

select is((select array_agg(k order by k) from account,
           jsonb_object_keys((api.me(body ->> 'token', '{}', '{}')).body) as k),
          array['balance', 'created_at', 'display_name', 'email', 'id', 'selected', 'settings'],
          'a Profile has exactly the documented keys');
select is(pg_temp.patch('{"display_name": "Renamed"}'), 'ok', 'display_name can change');
select is((select display_name from app.users where email = 'pro@example.com'), 'Renamed', '... and is stored');
select is(pg_temp.patch('{"settings": {"show_tip_on_timer": false}}'), 'ok', 'the tip setting can change');
select is((select show_tip_on_timer from app.users where email = 'pro@example.com'), false, '... and is stored');
select is(pg_temp.patch('{"nickname": "x"}'), 'PT400 invalid_field', 'an unknown key is 400');
select is(pg_temp.patch('{"settings": {"show_tip_on_timer": "no"}}'), 'PT400 invalid_field', 'a wrong type is 400');
select is((select display_name || show_tip_on_timer::text from app.users where email = 'pro@example.com'),
          'Renamedfalse', 'refused patches changed nothing');

select * from finish();
rollback;
