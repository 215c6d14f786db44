-- PATCH /me settings.push: quiet hours, muted push and reminder types, the evening and mail
-- reminders, shown in the Profile.
begin;
select plan(12);
select test.new_user('ada');
create function pg_temp.push(body jsonb) returns jsonb language sql as $$
    select (api.me_update(test.token('ada'), '{}', jsonb_build_object('settings', jsonb_build_object('push', body)))).body
           -> 'settings' -> 'push'
$$;

select is((api.me_get(test.token('ada'), '{}', '{}')).body -> 'settings' -> 'push', '{"quiet_hours": null, "muted": [], "evening": "19:00", "mail_reminders": false}'::jsonb,
          'no quiet hours and nothing muted at first');
select is(pg_temp.push('{"quiet_hours": {"start": "22:00", "end": "07:30"}}'),
          '{"quiet_hours": {"start": "22:00", "end": "07:30"}, "muted": [], "evening": "19:00", "mail_reminders": false}'::jsonb, 'quiet hours set (past midnight)');
select is(pg_temp.push('{"muted": ["friend_request.accepted", "friend_request.accepted"]}'),
          '{"quiet_hours": {"start": "22:00", "end": "07:30"}, "muted": ["friend_request.accepted"], "evening": "19:00",
            "mail_reminders": false}'::jsonb,
          'muted types set, the quiet hours kept');
select is(pg_temp.push('{"quiet_hours": null}'),
          '{"quiet_hours": null, "muted": ["friend_request.accepted"], "evening": "19:00", "mail_reminders": false}'::jsonb,
          'null clears the quiet hours');
select is(pg_temp.push('{"muted": ["reminder.goal_reached"], "evening": "20:30", "mail_reminders": true}'),
          '{"quiet_hours": null, "muted": ["reminder.goal_reached"], "evening": "20:30", "mail_reminders": true}'::jsonb,
          'a reminder type muted, the evening and mail reminders set');

create temporary table before on commit drop as select * from app.push_settings;
select is(test.error_of($$ select pg_temp.push('{"quiet_hours": {"start": "24:00", "end": "07:00"}}') $$), 'PT400 invalid_field',
          'a time past 23:59 is 400');
select is(test.error_of($$ select pg_temp.push('{"quiet_hours": {"start": "07:00", "end": "07:00"}}') $$), 'PT400 invalid_field',
          'quiet hours ending when they start are 400');
select is(test.error_of($$ select pg_temp.push('{"muted": ["session.started"]}') $$), 'PT400 invalid_field',
          'an unknown push type is 400');
select is(test.error_of($$ select pg_temp.push('{"evening": "7pm"}') $$), 'PT400 invalid_field', 'an evening not HH:MM is 400');
select is(test.error_of($$ select pg_temp.push('{"mail_reminders": "yes"}') $$), 'PT400 invalid_field',
          'mail_reminders not a boolean is 400');
select is(test.error_of($$ select pg_temp.push('{"sound": false}') $$), 'PT400 invalid_field', 'an unknown key is 400');
select set_eq('select * from app.push_settings', 'select * from before', 'the refusals changed nothing');
select * from finish();
rollback;
