-- A suspended or banned user answers 403 account_suspended on every route but export, deletion
-- and logout, and is left out of boards (global and friends), friends lists and islands while
-- the suspension holds; the rank histogram is untouched (counter_reconciliation holds) and the
-- suspension ends by itself.
begin;
select plan(17);
select test.new_user(name) from unnest(array['mod', 'sam', 'ann', 'bo']) as name;
insert into app.moderators (user_id) values (test.uid('mod'));
select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'))
from (values ('sam', 'ann'), ('ann', 'sam')) v(a, b);  -- sam and ann are friends
select test.session(name, test.day_start(), minutes) from (values ('sam', 60), ('ann', 30), ('bo', 20)) v(name, minutes);
set constraints all immediate;
select api.moderation_users_suspend(test.token('mod'), jsonb_build_object('id', test.uid('sam')),
                                    jsonb_build_object('until', api.iso(test.day_start() + interval '2 days'), 'reason', 'harassment'));
create function pg_temp.board(name text, scope text) returns jsonb language sql as $$
    select jsonb_build_object('entries', (select jsonb_agg(jsonb_build_array(e -> 'user' ->> 'display_name', e -> 'rank'))
                                           from jsonb_array_elements(b.body -> 'entries') e),
                              'me', b.body -> 'me' -> 'rank')
    from api.leaderboards_get(test.token(name), jsonb_build_object('period', 'daily', 'scope', scope), '{}') b
$$;
create function pg_temp.friends(name text) returns jsonb language sql as $$
    select coalesce(jsonb_agg(f ->> 'display_name'), '[]') from jsonb_array_elements((api.friends_list(test.token(name), '{}', '{}')).body -> 'friends') f
$$;

-- every endpoint that takes a token, but export, deletion and logout
select is(array_agg(p.proname::text order by p.proname) filter (where test.error_of(format(
              'select %s(test.token(%L), %L, %s)', p.oid::regproc, 'sam', '{"id": "00000000-0000-4000-8000-000000000000", "period": "daily"}',
              case when p.proargtypes[2] = 'bytea'::regtype then '''\x00''::bytea' else '''{}''::jsonb' end)) <> 'PT403 account_suspended'),
          array['me_delete', 'me_export_get'],
          'sam''s token gets 403 account_suspended from every endpoint that takes a token but delete and export (and logout, below)')
from pg_proc p
where p.pronamespace = 'api'::regnamespace and p.proargnames[1:3] = array['token', 'params', 'body']
  and p.prosrc ~ ('\m' || p.proname || '\.token\M') and p.proname not in ('auth_logout', 'moderation_session_delete');  -- the endpoints that read their token (public ones do not); sign-outs: logout below, the console's in 120_web_console_session.sql
select is(test.error_of($$ select api.me_get(test.token('sam'), '{}', '{}') $$), 'PT403 account_suspended', 'GET /me is 403 account_suspended');
select is((api.me_export_get(test.token('sam'), '{}', '{}')).body -> 'profile' ->> 'display_name', 'Sam', 'GET /me/export still answers');
select is(test.error_of($$ select api.idempotent('api.me_update', test.token('sam'), '{"idempotency_key": "k1"}', '{"display_name": "S"}') $$),
          'PT403 account_suspended', 'a request under an Idempotency-Key is 403 too');
select is((select count(*) from app.idempotency_keys where scope = 'user:' || test.uid('sam')), 0::bigint, '... and keeps no key');
select is(test.error_of($$ select api.events_stream_open(test.token('sam'), '{}', '{}') $$), 'PT403 account_suspended',
          'no event stream opens for sam');

-- gone from boards, lists and islands
select is(pg_temp.board('bo', 'global'), '{"entries": [["Ann", 1], ["Bo", 2]], "me": 2}'::jsonb,
          'sam (60 minutes, first) is gone from the global board; ranks count only the users shown');
select is(pg_temp.board('ann', 'friends'), '{"entries": [["Ann", 1]], "me": 1}'::jsonb, '... and from ann''s friends board');
select is(pg_temp.friends('ann'), '[]'::jsonb, '... and from ann''s friends list');
select is(test.error_of(format($$ select api.users_get(test.token('ann'), %L, '{}') $$, jsonb_build_object('id', test.uid('sam')))),
          'PT404 user_not_found', '... and sam''s island is 404 like a stranger''s');
select is((select count(*) from app.friendships where status = 'accepted'), 1::bigint, 'the friendship itself stays');
select is_empty($$ select * from report.counter_reconciliation $$, 'the rank histogram still counts every rollup row (counter_reconciliation is empty)');
select is((select sum(users) from app.daily_minutes_counts where day = (test.day_start() at time zone 'UTC')::date), 3::bigint,
          '... sam included: the board subtracts suspended users, the histogram keeps them');

-- the suspension ends by itself (its end moved to now here: time passing, in one transaction)
update app.suspensions set until = now() where user_id = test.uid('sam');
select is(test.error_of($$ select api.me_get(test.token('sam'), '{}', '{}') $$), 'ok', 'when it ends, sam''s token works again');
select is((pg_temp.board('bo', 'global'), pg_temp.friends('ann')),
          ('{"entries": [["Sam", 1], ["Ann", 2], ["Bo", 3]], "me": 3}'::jsonb, '["Sam"]'::jsonb),
          '... and sam is back on the board, with every rank, and in ann''s friends');

-- a ban; deletion still works
select api.moderation_users_ban(test.token('mod'), jsonb_build_object('id', test.uid('sam')), '{"reason": "harassment again"}');
select is(test.error_of($$ select api.auth_logout(test.token('sam'), '{}', '{}') $$), 'ok', 'a banned user may log out');
select is(test.error_of($$ select api.me_delete((api.auth_login(null, '{}', '{"email": "sam@example.com", "password": "correct horse"}')).body ->> 'token',
                                                 '{}', '{"password": "correct horse"}') $$), 'ok',
          'and sign in again and delete the account');

select * from finish();
rollback;
