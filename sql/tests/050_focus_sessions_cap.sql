-- The offline coin cap (300 a day) cannot be multiplied by changing time zone: it counts the
-- UTC day of a session's end, so switching settings.time_zone before each upload and starting
-- each session at that zone's local midnight opens no new cap. Fixtures are built on
-- yesterday's UTC day (test.day_start(1)): wholly past and within offline_max_age at any clock.
begin;
select plan(8);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user(name) from unnest(array['hopper', 'batcher']) as name;

-- Eight 179-minute sessions on yesterday's UTC day, each starting at local midnight of the zone
-- set just before its upload: UTC, UTC-3, -6, -9, -12, then UTC+9, +6, +3 (Etc/GMT+3 is UTC-3).
create temporary table hops on commit drop as
select n, zone, md5('hop' || n)::uuid as id, test.day_start(1) + make_interval(hours => 3 * n) as started_at
from unnest(array['Etc/GMT', 'Etc/GMT+3', 'Etc/GMT+6', 'Etc/GMT+9', 'Etc/GMT+12', 'Etc/GMT-9', 'Etc/GMT-6', 'Etc/GMT-3'])
     with ordinality as z(zone, n0), lateral (select (n0 - 1)::integer as n) i;
create function pg_temp.upload(token text, zone text, id uuid, started_at timestamptz, minutes integer default 179)
returns integer language sql as $$
    select api.me_update(token, '{}', jsonb_build_object('settings', jsonb_build_object('time_zone', zone)));
    select ((api.focus_sessions_create(token, '{}', jsonb_build_object(
        'id', id, 'started_at', api.iso(started_at),
        'ended_at', api.iso(started_at + make_interval(mins => minutes))))).body -> 'session' ->> 'coins_earned')::integer
$$;

select ok((select bool_and((started_at at time zone zone)::time = '00:00' and started_at + interval '179 minutes' < test.day_start(0)) from hops),
          'the fixture: each session starts at local midnight of its zone and ends on the same UTC day');
create temporary table paid on commit drop as
select h.n, pg_temp.upload(test.token('hopper'), h.zone, h.id, h.started_at) as coins from hops h order by h.n;
select is((select count(*)::integer from app.focus_sessions where user_id = test.uid('hopper')), 8, 'the eight uploads were recorded');
select is((select array_agg(coins order by n) from paid), array[179, 121, 0, 0, 0, 0, 0, 0],
          'zone-hopping uploads pay 179, then the 121 left of the cap, then nothing (it paid 8 x 179 = 1,432 when the cap followed the zone)');
select is((select sum(amount)::integer from app.coin_ledger where user_id = test.uid('hopper') and entry = 'earn'), 300,
          '... so the ledger holds at most the cap for the UTC day');
select is((select balance from app.users where id = test.uid('hopper')), 300, '... and so does the balance');

-- The same eight sessions in one batch, zones switched between the sessions' local days
-- cannot matter either: the batch pays the cap once.
select api.me_update(test.token('batcher'), '{}', '{"settings": {"time_zone": "Pacific/Kiritimati"}}');
select is((select jsonb_agg(r -> 'body' -> 'session' -> 'coins_earned')
           from jsonb_array_elements((api.focus_sessions_batch_create(test.token('batcher'), '{}', jsonb_build_object('sessions',
               (select jsonb_agg(jsonb_build_object('id', md5('batch' || h.id)::uuid, 'started_at', api.iso(h.started_at),
                                                    'ended_at', api.iso(h.started_at + interval '179 minutes')) order by h.n)
                from hops h)))).body -> 'results') r),
          '[179, 121, 0, 0, 0, 0, 0, 0]'::jsonb, 'a batch of the same eight pays the cap once');

-- The UTC day is the unit, in every zone. Kiritimati (UTC+14) sees 23:50 and 00:20 UTC as one
-- afternoon, yet they fall on two UTC days with a cap each; 12:00 UTC is another local day in
-- UTC-12 than 00:20, yet the same UTC day, so the same cap. Three days ago and the day before.
update app.economy_settings set offline_daily_coin_cap = 30;
select is(array[pg_temp.upload(test.token('hopper'), 'Pacific/Kiritimati', gen_random_uuid(), test.day_start(2) - interval '40 minutes', 30),
                pg_temp.upload(test.token('hopper'), 'Pacific/Kiritimati', gen_random_uuid(), test.day_start(2) - interval '10 minutes', 30),
                pg_temp.upload(test.token('hopper'), 'Etc/GMT+12', gen_random_uuid(), test.day_start(2) + interval '12 hours', 30)],
          array[30, 30, 0], 'one local day across UTC midnight: two caps; two local days in one UTC day: one cap');
select is_empty('select * from report.ledger_reconciliation', 'balances still equal ledger sums');

select * from finish();
rollback;
