-- The product views (sql/report/080_product.sql, migration 0095) on a fixture built from UTC
-- calendar boundaries, so it holds at any clock: a sign-up cohort six weeks back whose people
-- come back (or not) on their 1st, 7th and 30th day, sessions ending exactly at a UTC midnight,
-- a second session the same day, sessions deleted again, a cohort whose day 1 has not ended;
-- sign-ins record their client (X-Client-Version) and the by-client views add up.
begin;
-- The counts are kept at commit (deferred triggers); this file reads them in its own transaction.
set constraints all immediate;
select plan(22);

-- The cohort week: its Monday, six weeks back (its Sunday's day 30 ended 5 days ago at least).
create function pg_temp.w() returns date language sql as $$ select (test.week_start(6) at time zone 'UTC')::date $$;
-- A person's recorded sign-up moved to `day` with the client `version` names (as
-- api.record_sign_in would have written it that day): the day's count moves with it.
create function pg_temp.sign_up_on(name text, day date, version text) returns void language sql as $$
    update app.signup_day_totals t set signed_up = t.signed_up - 1
    from app.user_clients c
    where c.user_id = test.uid(name) and t.day = c.signup_day and t.client_id = c.signup_client_id
      and t.shard = app.counter_shard(c.user_id);
    update app.user_clients c
    set signup_day = sign_up_on.day, signup_client_id = api.client_id(jsonb_build_object('client_version', version)),
        client_id = api.client_id(jsonb_build_object('client_version', version))
    where c.user_id = test.uid(name);
    insert into app.signup_day_totals as t (day, client_id, shard, signed_up)
    select c.signup_day, c.signup_client_id, app.counter_shard(c.user_id), 1 from app.user_clients c where c.user_id = test.uid(name)
    on conflict on constraint signup_day_totals_pkey do update set signed_up = t.signed_up + 1;
$$;
-- A session of 10 minutes ending at midnight UTC starting `day` (or `at` past it).
create function pg_temp.session_at(name text, day date, at interval default '0') returns uuid language sql as $$
    select test.session(name, (session_at.day::timestamp + session_at.at) at time zone 'UTC', 10)
$$;
create function pg_temp.week_row(platform text) returns text language sql as $$
    select format('%s %s %s %s %s %s %s', r.signed_up, r.d1, r.d1_percent, r.d7, r.d7_percent, r.d30, r.d30_percent)
    from report.retention_by_signup_week r
    where r.week = pg_temp.w() and r.platform is not distinct from week_row.platform
$$;

select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus']) as name;
-- The cohort of week W: ann on its Monday, bob on its Sunday (ios); cat on its Wednesday
-- (android); dan on its Tuesday (no header). eve on the Sunday before (ios).
select pg_temp.sign_up_on('ann', pg_temp.w(), 'ios/1.2.0');
select pg_temp.sign_up_on('bob', pg_temp.w() + 6, 'iOS/1.2.0');
select pg_temp.sign_up_on('cat', pg_temp.w() + 2, 'android/2.0');
select pg_temp.sign_up_on('dan', pg_temp.w() + 1, null);
select pg_temp.sign_up_on('eve', pg_temp.w() - 1, 'ios/1.1');

-- ann: her sign-up day (day 0, not counted), day 1 ending at its first second, day 7, day 30.
select pg_temp.session_at('ann', pg_temp.w(), '12 hours');
select pg_temp.session_at('ann', pg_temp.w(), '13 hours');
select pg_temp.session_at('ann', pg_temp.w() + 1, '10 minutes');
select pg_temp.session_at('ann', pg_temp.w() + 7, '23 hours 59 minutes 59 seconds');
select pg_temp.session_at('ann', pg_temp.w() + 30, '1 hour');
-- bob: a session ending exactly at the midnight after his sign-up day belongs to day 1 (the
-- next week's Monday, still his cohort's day 1), and one ending at the midnight of day 7.
select pg_temp.session_at('bob', pg_temp.w() + 7);
select pg_temp.session_at('bob', pg_temp.w() + 13);
-- cat: two sessions on day 1, one deleted again (still back on day 1); one ending a second
-- before day 30.
select pg_temp.session_at('cat', pg_temp.w() + 3, '9 hours');
create temporary table gone on commit drop as select pg_temp.session_at('cat', pg_temp.w() + 3, '10 hours') as id;
delete from app.focus_sessions where id = (select id from gone);
select pg_temp.session_at('cat', pg_temp.w() + 32, '-1 second');
-- dan: back on day 1, then that session deleted: not back.
truncate gone;
insert into gone select pg_temp.session_at('dan', pg_temp.w() + 2, '8 hours');
delete from app.focus_sessions where id = (select id from gone);
-- eve: day 1 is week W's Monday; she counts in her own cohort, week W - 1.
select pg_temp.session_at('eve', pg_temp.w(), '7 hours');

select is(pg_temp.week_row(null), '4 3 75.0 2 50.0 1 25.0',
          'week W: 4 signed up; 3 back on day 1, 2 on day 7, 1 on day 30 (boundaries on UTC midnights)');
select is(pg_temp.week_row('ios'), '2 2 100.0 2 100.0 1 50.0', 'week W on ios (the platform lower-cased)');
select is(pg_temp.week_row('android'), '1 1 100.0 0 0.0 0 0.0', 'week W on android: a second before day 30 is day 29');
select is(pg_temp.week_row('unknown'), '1 0 0.0 0 0.0 0 0.0', 'week W without a header: a deleted session is no return');
select is((select format('%s %s %s', r.signed_up, r.d1, r.d1_percent) from report.retention_by_signup_week r
           where r.week = pg_temp.w() - 7 and r.platform is null),
          '1 1 100.0', 'the week before: eve, back on day 1');

-- A cohort whose day 1 has not ended: fay signed up yesterday and gus today, both active
-- today: no day 1 is counted, above or below the line, and the sign-ups are there. (Compared
-- with the weeks' rows before them: people the set-up signed up earlier this week at the real
-- clock are in these weeks too, with their day 1 over at a later clock.)
create temporary table weeks_before as
select r.week, r.d1 from report.retention_by_signup_week r
where r.week >= date_trunc('week', test.day_start(1) at time zone 'UTC')::date and r.platform is null;
select pg_temp.sign_up_on('fay', (test.day_start(1) at time zone 'UTC')::date, 'ios/1.2.0');
select pg_temp.sign_up_on('gus', (test.day_start(0) at time zone 'UTC')::date, 'ios/1.2.0');
select test.session('fay', now(), 1);
select test.session('gus', now(), 1);
select is((select array_agg(r.week || ' ' || coalesce(r.d1::text, '-') order by r.week) from report.retention_by_signup_week r
           where r.week >= date_trunc('week', test.day_start(1) at time zone 'UTC')::date and r.platform is null),
          (select array_agg(r.week || ' ' || coalesce(w.d1::text, '-') order by r.week)
           from report.retention_by_signup_week r left join weeks_before w on w.week = r.week
           where r.week >= date_trunc('week', test.day_start(1) at time zone 'UTC')::date and r.platform is null),
          'a day 1 still running counts no one, above or below the line');
select is((select sum(s.signups) from report.signups_per_day s where s.day >= (test.day_start(1) at time zone 'UTC')::date
           and s.platform = 'ios' and s.version = '1.2.0'),
          2::numeric, 'yesterday''s and today''s sign-ups by platform and version');
select is((select sum(s.signups) from report.signups_per_day s where s.day between pg_temp.w() - 1 and pg_temp.w() + 6),
          5::numeric, 'the sign-ups of week W and the Sunday before');

-- DAU, WAU, MAU: what counting the fixture's sessions gives.
select is((select array_agg(a.period || ' ' || a.start || ' ' || a.active_users order by a.period, a.start)
           from report.active_users a where a.period in ('week', 'month')),
          (select array_agg(p.period || ' ' || p.start || ' ' || p.users order by p.period, p.start)
           from (select p.period, date_trunc(p.period, s.ended_at at time zone 'UTC')::date as start, count(distinct s.user_id) as users
                 from app.focus_sessions s cross join unnest(array['week', 'month']) as p(period)
                 group by 1, 2) p),
          'WAU and MAU are the people with a session in each UTC calendar week and month');
select is((select a.active_users from report.active_users a where a.period = 'week' and a.start = pg_temp.w()),
          3::bigint, 'week W: ann, cat, eve (bob''s Monday is the next week''s)');
select is((select a.active_users from report.active_users a where a.period = 'day' and a.start = pg_temp.w() + 3),
          1::bigint, 'DAU: cat, her second session of the day deleted again');

-- Sessions, minutes and ratings per client.
update app.focus_sessions set rating = 'good', rated_at = ended_at
where user_id = test.uid('ann') and ended_at < (pg_temp.w() + 2)::timestamp at time zone 'UTC';
select is((select format('%s %s %s %s %s %s %s', a.active_users, a.sessions, a.minutes, a.sessions_per_active_user,
                         a.minutes_per_active_user, a.rated, a.rated_percent)
           from report.activity_per_day_by_client a where a.day = pg_temp.w() and a.platform = 'ios' and a.version = '1.2.0'),
          '1 2 20 2.00 20.0 2 100.0', 'ann''s sign-up day: two sessions, both rated, under her client');
update app.focus_sessions set rating = null, rated_at = null
where user_id = test.uid('ann') and ended_at = pg_temp.w()::timestamp at time zone 'UTC' + interval '12 hours';
select is((select a.rated_percent from report.activity_per_day_by_client a
           where a.day = pg_temp.w() and a.platform = 'ios' and a.version = '1.2.0'),
          50.0, 'a rating taken back');
select is((select array_agg(d.day || ' ' || d.sessions || ' ' || d.minutes order by d.day) from
           (select a.day, sum(a.sessions) as sessions, sum(a.minutes) as minutes from report.activity_per_day_by_client a group by a.day) d),
          (select array_agg(d.day || ' ' || d.sessions || ' ' || d.minutes order by d.day) from
           (select (s.ended_at at time zone 'UTC')::date as day, count(*) as sessions, sum(s.minutes) as minutes
            from app.focus_sessions s group by 1) d),
          'the clients'' days add up to the sessions');

-- The job folds the past days' shards (app.compact_product_rollups): the views answer the
-- same, and a rating or a deletion on a folded day still lands.
create temporary table unfolded on commit drop as select * from report.activity_per_day_by_client;
select is(app.compact_product_rollups(1000) > 0, true, 'the job folds the past days');
select is((select count(*) from app.client_day_totals
           where day < (now() at time zone 'UTC')::date - 1 and shard <> 0), 0::bigint, '... into one row a day and client');
select set_eq('select * from report.activity_per_day_by_client', 'select * from unfolded', '... and the view answers the same');
update app.focus_sessions set rating = 'fine', rated_at = ended_at
where user_id = test.uid('ann') and ended_at = pg_temp.w()::timestamp at time zone 'UTC' + interval '12 hours';
delete from app.focus_sessions
where user_id = test.uid('ann') and ended_at = pg_temp.w()::timestamp at time zone 'UTC' + interval '13 hours';
select is((select format('%s %s %s %s', a.active_users, a.sessions, a.minutes, a.rated_percent)
           from report.activity_per_day_by_client a where a.day = pg_temp.w() and a.platform = 'ios' and a.version = '1.2.0'),
          '1 1 10 100.0', 'a folded day: a rating given and a session deleted');
select is((select array_agg(d.day || ' ' || d.sessions || ' ' || d.minutes order by d.day) from
           (select a.day, sum(a.sessions) as sessions, sum(a.minutes) as minutes from report.activity_per_day_by_client a group by a.day) d),
          (select array_agg(d.day || ' ' || d.sessions || ' ' || d.minutes order by d.day) from
           (select (s.ended_at at time zone 'UTC')::date as day, count(*) as sessions, sum(s.minutes) as minutes
            from app.focus_sessions s group by 1) d),
          '... and the days still add up to the sessions');

-- Sign-ins record their client; the coins follow the latest one.
select is((api.auth_login(null, '{"client_version": "android/2.1.3"}', '{"email": "gus@example.com", "password": "correct horse"}')).status is null,
          true, 'gus signs in from android 2.1.3');
select is((select array_agg(k.platform || '/' || k.version || ' ' || s.sign_ins)
           from app.client_sign_ins s join app.clients k on k.id = s.client_id
           where s.user_id = test.uid('gus') and k.platform = 'android'),
          array['android/2.1.3 1'], 'the sign-in is recorded with its day and client');
select app.grant_coins(test.uid('gus'), 40, 'report test');
select is((select format('%s %s', e.granted, e.given) from report.coin_economy_per_day_by_client e
           where e.day = (now() at time zone 'UTC')::date and e.platform = 'android' and e.version = '2.1.3'),
          '40 0', 'coins granted after the sign-in count under its client');

select * from finish();
rollback;
