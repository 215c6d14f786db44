-- The UTC-day totals (migration 0013) that the per-day report views read always equal a recount
-- of the sessions and the ledger (report.counter_reconciliation is empty), after uploads (one
-- and a batch) on both sides of a UTC midnight, live sessions started, finished and abandoned,
-- ratings, purchases and grants, a session moved across midnight, deleted, a change of time
-- zone and a deleted account; and the views answer what grouping the rows answers.
begin;
-- The counts of 0013 are kept at commit; this file reads them in its own transaction.
set constraints all immediate;
select plan(13);
select test.new_user(name) from unnest(array['fay', 'gus']) as name;
update app.users set time_zone = 'Asia/Tokyo' where id = test.uid('gus');

create function pg_temp.wrong() returns bigint language sql as $$
    select count(*) from report.counter_reconciliation
$$;
-- An upload through the api: true when it was taken (a success has no status of its own).
create function pg_temp.upload(name text, ends timestamptz, minutes integer) returns boolean language sql as $$
    select (api.focus_sessions_create(test.token(name), '{}', jsonb_build_object(
        'id', gen_random_uuid(), 'started_at', api.iso(ends - make_interval(mins => minutes)), 'ended_at', api.iso(ends)))).status is null
$$;

select is(array[pg_temp.upload('fay', test.day_start(1), 25), pg_temp.upload('fay', test.day_start(1) - interval '1 hour', 15),
                pg_temp.upload('gus', test.day_start(1) + interval '1 second', 30), pg_temp.upload('gus', test.day_start(2) - interval '1 hour', 20)],
          array[true, true, true, true], 'four uploads on both sides of a UTC midnight and three days back');
select is(pg_temp.wrong(), 0::bigint, 'uploads are in the day totals, the active users and the ledger''s day');

select is((api.focus_sessions_batch_create(test.token('fay'), '{}', jsonb_build_object('sessions', jsonb_build_array(
              jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(test.day_start(2) + interval '1 hour'),
                                 'ended_at', api.iso(test.day_start(2) + interval '1 hour 40 minutes')),
              jsonb_build_object('id', gen_random_uuid(), 'started_at', api.iso(test.day_start(2) + interval '3 hours'),
                                 'ended_at', api.iso(test.day_start(2) + interval '3 hours 10 minutes'), 'rating', 'good'))))).body #>> '{results,1,status}',
          '201', 'a batch of two');
select is(pg_temp.wrong(), 0::bigint, 'a batch is counted');

-- Live: one started and finished 30 minutes later, one started and abandoned.
create temporary table live on commit drop as
select ((api.focus_sessions_start(test.token('gus'), '{}', '{"planned_minutes": 25}')).body #>> '{session,id}')::uuid as id;
select is(pg_temp.wrong(), 0::bigint, 'a running session is not counted');
update app.focus_sessions set started_at = now() - interval '30 minutes',
       occupies = tstzrange(now() - interval '30 minutes', now() + interval '150 minutes')
where id = (select id from live);
select api.focus_sessions_finish(test.token('gus'), jsonb_build_object('id', (select id from live)), '{}');
select api.focus_sessions_rate(test.token('gus'), jsonb_build_object('id', (select id from live)), '{"rating": "fine"}');
select is(pg_temp.wrong(), 0::bigint, 'a finished (and rated) live session is counted with its coins');
select id from live \gset live_
select ((api.focus_sessions_start(test.token('fay'), '{}', '{"planned_minutes": 25}')).body #>> '{session,id}')::uuid as id \gset abandoned_
select api.focus_sessions_abandon(test.token('fay'), jsonb_build_object('id', :'abandoned_id'::uuid), '{}');
select is(pg_temp.wrong(), 0::bigint, 'an abandoned session is counted as a finished one of 0 minutes');

select api.shop_purchases_create(test.token('fay'), '{}', jsonb_build_object('item_id', i.id))
from app.shop_items i where i.active and not i.is_starter and i.price <= 40 order by i.price limit 1;
select app.grant_coins(test.uid('gus'), 100, 'report test');
select is(pg_temp.wrong(), 0::bigint, 'a purchase and a grant are in the ledger''s day');

-- Straight in the table: a session moved across UTC midnight, then deleted.
update app.focus_sessions s set ended_at = test.day_start(1) + interval '20 minutes', started_at = test.day_start(1) + interval '5 minutes',
       occupies = tstzrange(test.day_start(1) + interval '5 minutes', test.day_start(1) + interval '20 minutes'), minutes = 15
where s.user_id = test.uid('fay') and s.ended_at = test.day_start(1) - interval '1 hour';
select is(pg_temp.wrong(), 0::bigint, 'a session moved to the next UTC day moves its totals and its user''s day');
delete from app.focus_sessions where id = :'abandoned_id'::uuid;
select is(pg_temp.wrong(), 0::bigint, 'a deleted session leaves the totals and, with its user''s last of the day, the active users');

select api.me_update(test.token('gus'), '{}', '{"settings": {"time_zone": "UTC"}}');
select api.me_delete(test.token('fay'), '{}', '{"password": "correct horse"}');
select is(pg_temp.wrong(), 0::bigint, 'a change of time zone and a deleted account change nothing of UTC days (their sessions still count)');

-- The views answer what grouping the rows answers (their definitions before 0013).
select set_eq(
    $$ select a.day, a.active_users, f.sessions, f.minutes, f.average_minutes, p.path, p.sessions as path_sessions, p.minutes as path_minutes, p.coins
       from report.daily_active_users a join report.focused_minutes_per_day f using (day) join report.sessions_per_day_by_path p using (day) $$,
    $$ with s as (select (s.ended_at at time zone 'UTC')::date as day, s.*
                  from (select * from app.focus_sessions union all select * from app.focus_sessions_archived) s  -- 0055
                  where s.ended_at is not null)
       select d.day, d.active_users, d.sessions, d.minutes, d.average_minutes, p.source, p.sessions as path_sessions, p.minutes as path_minutes, p.coins
       from (select day, count(distinct user_id) as active_users, count(*) as sessions, sum(minutes) as minutes,
                    round(avg(minutes), 1) as average_minutes from s group by day) d
       join (select day, source, count(*) as sessions, sum(minutes) as minutes, sum(coins_earned) as coins from s group by day, source) p
         using (day) $$,
    'the session views equal the sessions grouped by UTC day (and path)');
select set_eq(
    $$ select * from report.coin_economy_per_day $$,
    $$ select d.day, d.earned, d.spent, d.granted, sum(d.earned - d.spent + d.granted) over (order by d.day)
       from (select (c.created_at at time zone 'UTC')::date as day,
                    coalesce(sum(c.amount) filter (where c.entry in ('earn', 'bonus', 'reward')), 0) as earned,
                    coalesce(-sum(c.amount) filter (where c.entry = 'spend'), 0) as spent,
                    coalesce(sum(c.amount) filter (where c.entry = 'grant'), 0) as granted
             from app.coin_ledger c group by 1) d $$,
    'report.coin_economy_per_day equals the ledger grouped by UTC day, with its running total');

select * from finish();
rollback;
