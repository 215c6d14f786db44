-- The offline window of a new account (2026-12-07, docs/sessions.md): a guest, or an account
-- younger than economy_settings.new_account_offline_age (30 days), records offline sessions
-- back to its creation, past offline_max_age (7 days); an older account keeps the 7 days; the
-- daily cap of offline coins holds for each day alike.
begin;
select plan(7);
select test.new_user('old');
select test.new_user('new');
select test.made_ago('new', interval '20 days');
insert into test.accounts (name, account)
select 'gus', (api.auth_guest_create(null, '{}', '{}')).body;
update app.users set created_at = now() - interval '40 days' where id = test.uid('gus');
create function pg_temp.upload(name text, days_ago integer, minutes integer default 60) returns api.reply language sql as $$
    select api.focus_sessions_create(test.token(name), '{}', jsonb_build_object(
        'id', gen_random_uuid(), 'started_at', api.iso(test.day_start(days_ago) + interval '1 hour'),
        'ended_at', api.iso(test.day_start(days_ago) + interval '1 hour' + make_interval(mins => minutes))))
$$;

select is(test.error_of($$ select pg_temp.upload('old', 12) $$), 'PT422 invalid_session',
          'an account older than 30 days: a session 12 days ago is too old (7 days)');
select is(test.error_of($$ select pg_temp.upload('old', 5) $$), 'ok', '... 5 days ago is recorded');
select is(test.error_of($$ select pg_temp.upload('new', 12) $$), 'ok', 'an account made 20 days ago records a session 12 days ago');
select is(test.error_of($$ select pg_temp.upload('new', 21) $$), 'PT422 invalid_session', '... never one before it was made');
select is(test.error_of($$ select pg_temp.upload('gus', 35) $$), 'ok', 'a guest made 40 days ago records one 35 days ago');
select is((select sum(l.amount)::integer from app.coin_ledger l where l.user_id = test.uid('new') and l.entry = 'earn'),
          least((select e.offline_daily_coin_cap from app.economy_settings e),
                (select floor(60 * e.coins_per_minute)::integer from app.economy_settings e)),
          'the coins of such a day are capped as every offline day');
update app.economy_settings set new_account_offline_age = interval '0';
select is(test.error_of($$ select pg_temp.upload('new', 13) $$), 'PT422 invalid_session',
          'new_account_offline_age is a setting (0: the 7 days for every full account)');

select * from finish();
rollback;
