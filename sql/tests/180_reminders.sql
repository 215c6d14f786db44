-- Reminders (docs/push.md, "Reminders"): a streak at risk reminded once at the person's 19:00,
-- not when a session ran today, not before 19:00, not when a freeze covers it, not when muted;
-- inside quiet hours sent at their end; by mail without a push token when allowed; today's goal;
-- a friend request unanswered after a day; a room invite at once; the daily cap; a job run
-- twice sends once.
-- Runs at every clock the suite moves to: each person's time zone is chosen from the
-- database's now() so that their local time is 19:xx ("nineteen": Etc/GMT-N, whole hours) or
-- 18:xx ("eighteen"), and every fixture is built from their own day starts, so every moved
-- clock sees the same rules.
begin;
select plan(24);

-- The fixed-offset zone whose local hour is `hour` now (offsets -12 to +14; Etc/GMT's sign is
-- POSIX's, reversed).
create function pg_temp.zone_at(hour integer) returns text language sql stable as $$
    select case when o = 0 then 'Etc/GMT' when o > 0 then 'Etc/GMT-' || o else 'Etc/GMT+' || -o end
    from (select case when x > 14 then x - 24 else x end as o
          from (select ((hour - extract(hour from now() at time zone 'UTC')::integer) % 24 + 24) % 24 as x) a) b
$$;
create temporary table zones on commit drop as select pg_temp.zone_at(19) as nineteen, pg_temp.zone_at(18) as eighteen;
select is((select extract(hour from now() at time zone nineteen)::integer from zones), 19, 'the fixture zone reads 19:xx now');

select test.new_user(name) from unnest(array['risk', 'ran', 'early', 'quiet', 'frozen', 'muted', 'mailer', 'goal',
                                             'asker', 'asked', 'host', 'guest', 'capped']) as name;
select api.me_update(test.token(name), '{}', jsonb_build_object('settings', jsonb_build_object('time_zone', z.nineteen)))
from zones z, unnest(array['risk', 'ran', 'quiet', 'frozen', 'muted', 'mailer', 'goal', 'asked', 'guest', 'capped']) as name;
select api.me_update(test.token('early'), '{}', jsonb_build_object('settings', jsonb_build_object('time_zone', z.eighteen)))
from zones z;
select api.me_update(test.token('quiet'), '{}', '{"settings": {"push": {"quiet_hours": {"start": "18:00", "end": "21:00"}}}}');
select api.me_update(test.token('muted'), '{}', '{"settings": {"push": {"muted": ["reminder.streak_at_risk"]}}}');
select api.me_update(test.token('mailer'), '{}', '{"settings": {"locale": "es", "push": {"mail_reminders": true}}}');
select api.me_update(test.token('goal'), '{}', '{"daily_goal_minutes": 30}');
-- A push token for everyone but the mailer.
select api.me_push_tokens_update(test.token(name), '{}',
                                 jsonb_build_object('token', repeat(lpad(to_hex(n::integer), 2, '0'), 32), 'platform', 'apns',
                                                    'environment', 'sandbox'))
from unnest(array['risk', 'ran', 'early', 'quiet', 'frozen', 'muted', 'goal', 'asked', 'guest', 'capped'])
     with ordinality as t(name, n);
create function pg_temp.zone(name text) returns text language sql stable as $$
    select time_zone from app.users where id = test.uid(name)
$$;
create function pg_temp.pushes(name text) returns text[] language sql as $$
    select coalesce(array_agg(o.type order by o.type), '{}') from app.push_outbox o
    join app.push_tokens p on p.token = o.token where p.user_id = test.uid(name) and o.reminder_id is not null
$$;

-- Yesterday (their own) at noon everyone with a streak focused; "ran" focused again today.
select test.session(name, test.local_day_start(pg_temp.zone(name), 1) + interval '12 hours', 30)
from unnest(array['risk', 'ran', 'early', 'quiet', 'frozen', 'muted', 'mailer', 'capped']) as name;
select test.session('ran', test.local_day_start(pg_temp.zone('ran')) + interval '1 minute', 30);
insert into app.streak_freezes (user_id, slot, price, bought_at)
values (test.uid('frozen'), 1, 0, test.local_day_start(pg_temp.zone('frozen'), 1));

select is((select due_at from app.reminder_schedule where user_id = test.uid('risk') and type = 'reminder.streak_at_risk'),
          test.local_day_start(pg_temp.zone('risk')) + interval '19 hours',
          'a session yesterday makes the streak reminder due at 19:00 today, their time');
select is((select due_at from app.reminder_schedule where user_id = test.uid('ran') and type = 'reminder.streak_at_risk'),
          test.local_day_start(pg_temp.zone('ran'), -1) + interval '19 hours',
          '... and a session today at 19:00 tomorrow');

-- Goal: 30 minutes today reach the 30-minute goal.
select test.session('goal', test.local_day_start(pg_temp.zone('goal')) + interval '1 hour', 30);
-- A friend request to "asked" that came 25 hours ago, and one an hour ago.
insert into app.friendships (user_low, user_high, requested_by, status, created_at)
select least(a, b), greatest(a, b), a, 'pending', now() - interval '25 hours'
from (select test.uid('asker') as a, test.uid('asked') as b) p;
select is((select due_at from app.reminder_schedule where user_id = test.uid('asked') and type = 'reminder.friend_request'),
          now() - interval '1 hour', 'a friend request makes its reminder due a day after it came');

-- The job's pass.
update app.scheduled_jobs set next_run_at = case when name = 'reminders' then now() else now() + interval '1 hour' end;
select is(api.jobs_run(), 1, 'the reminders job runs');
select is((select last_error from app.scheduled_jobs where name = 'reminders'), null, '... without an error');

select is(pg_temp.pushes('risk'), array['reminder.streak_at_risk'], 'a streak at risk at 19:00: one reminder');
select is((select count(*)::integer from app.reminders where user_id = test.uid('risk')), 1, '... recorded once');
select is(pg_temp.pushes('ran'), '{}'::text[], 'a session today: no reminder');
select is(pg_temp.pushes('early'), '{}'::text[], 'at 18:xx their time: not yet');
select is(pg_temp.pushes('frozen'), '{}'::text[], 'a held freeze covers today: no reminder');
select is((select due_at from app.reminder_schedule where user_id = test.uid('frozen') and type = 'reminder.streak_at_risk'),
          test.local_day_start(pg_temp.zone('frozen'), -1) + interval '19 hours', '... and it is looked at again tomorrow');
select is(pg_temp.pushes('muted'), '{}'::text[], 'a muted reminder type: nothing');
select is((select array_agg(o.send_after) from app.push_outbox o join app.push_tokens p on p.token = o.token
           where p.user_id = test.uid('quiet') and o.type = 'reminder.streak_at_risk'),
          array[test.local_day_start(pg_temp.zone('quiet')) + interval '21 hours'],
          'inside quiet hours (18:00 to 21:00): queued for their end');
select is((select jsonb_build_object('kind', kind, 'params', params, 'next', next_attempt_at = now()) from app.outgoing_mail
           where user_id = test.uid('mailer') and kind = 'reminder'),
          jsonb_build_object('kind', 'reminder', 'params',
                             (select jsonb_build_object('title', t.title, 'body', t.body) from app.reminder_texts t
                              where t.type = 'reminder.streak_at_risk'
                                and t.language = case when exists (select from app.languages where tag = 'es' and offered)
                                                      then 'es' else 'en' end),
                             'next', true),
          'no push token and mail allowed: one mail, in their language');
select is(pg_temp.pushes('goal'), array['reminder.goal_reached'], 'today''s goal reached: one reminder');
select is(pg_temp.pushes('asked'), array['reminder.friend_request'], 'a friend request unanswered a day: one reminder');
select is((select jsonb_agg(m -> 'loc_args') from jsonb_array_elements(api.push_claim(500, '{apns}')) m
           where m ->> 'type' = 'reminder.friend_request'
             and m ->> 'token' in (select token from app.push_tokens where user_id = test.uid('asked'))),
          '[["Asker"]]'::jsonb, '... naming the asker when claimed');
select ok(not exists (select from app.reminder_schedule where user_id = test.uid('asked')), '... and not again for it');

-- Run twice, and straight again: nothing more.
update app.scheduled_jobs set next_run_at = case when name = 'reminders' then now() else now() + interval '1 hour' end;
update app.reminder_schedule set due_at = now() where user_id in (test.uid('risk'), test.uid('goal'));
insert into app.reminder_schedule (user_id, type, due_at, last_day)
values (test.uid('risk'), 'reminder.streak_at_risk', now(), (now() at time zone pg_temp.zone('risk'))::date - 1)
on conflict do nothing;
select api.jobs_run();
select is(app.reminders_deliver(array[test.uid('risk')], array['reminder.streak_at_risk'], array[''], array['{}'::jsonb]), 0,
          'delivered again the same local day: nothing');
select is(pg_temp.pushes('risk'), array['reminder.streak_at_risk'], 'a job run twice sends once');

-- A room invite goes at once, in the invite's transaction.
insert into app.friendships (user_low, user_high, requested_by, status, accepted_at)
select least(a, b), greatest(a, b), a, 'accepted', now() from (select test.uid('host') as a, test.uid('guest') as b) p;
select api.rooms_create(test.token('host'), '{}', jsonb_build_object('planned_minutes', 25, 'invite', jsonb_build_array(test.uid('guest'))));
select is(pg_temp.pushes('guest'), array['reminder.room_invite'], 'a room invite: one reminder at once');

-- The daily cap (3) holds across types: "capped" already had today's streak reminder.
select is(app.reminders_deliver(array[test.uid('capped'), test.uid('capped'), test.uid('capped'), test.uid('capped')],
                                array['reminder.streak_at_risk', 'reminder.goal_reached', 'reminder.room_invite',
                                      'reminder.room_invite'],
                                array['', '', 'a', 'b'], array['{}'::jsonb, '{}', '{}', '{}']),
          2, 'four more due for one person who had one: the daily cap (3) sends two');
select is((select count(*)::integer from app.reminders where user_id = test.uid('capped')), 3, '... three in all today');

select * from finish();
rollback;
