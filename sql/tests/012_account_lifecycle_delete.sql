-- DELETE /me: the password is required; personal data goes, an anonymous tombstone keeps the
-- ledger, sessions and reports adding up; the email may register again; old tokens are 401.
begin;
select plan(24);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user('zqdel', 'Zebediah Quux');
select test.new_user(name) from unnest(array['pal', 'fan', 'foe']) as name;

-- A full account: coins, a purchase, a session, an avatar, a friend, a pending request to it,
-- a report it made and one about it, a block against it, a reset mail and a failed login.
select app.grant_coins(test.uid('zqdel'), 500, 'test coins');
select api.shop_purchases_create(test.token('zqdel'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')));
select test.session('zqdel', test.day_start(), 30);
insert into app.avatars (user_id, content_type, data) values (test.uid('zqdel'), 'image/png', '\x89504e470d0a1a0a00'::bytea);
select api.friend_requests_create(test.token('zqdel'), '{}', '{"email": "pal@example.com"}');
select api.friend_requests_create(test.token('pal'), '{}', '{"email": "zqdel@example.com"}');  -- asking back accepts
select api.friend_requests_create(test.token('fan'), '{}', '{"email": "zqdel@example.com"}');
select api.users_report_create(test.token('zqdel'), jsonb_build_object('id', test.uid('foe')), '{"reason": "spam"}');
select api.users_report_create(test.token('foe'), jsonb_build_object('id', test.uid('zqdel')),
                               '{"reason": "inappropriate_name", "details": "Zebediah Quux is rude"}');
select api.users_block_create(test.token('foe'), jsonb_build_object('id', test.uid('zqdel')), '{}');
select api.auth_password_reset_create(null, '{}', '{"email": "zqdel@example.com"}');
select api.auth_login(null, '{}', '{"email": "zqdel@example.com", "password": "wrong horse"}');

select ok(test.columns_holding(array['zqdel@example.com']) @> array['app.outgoing_mail.recipient', 'app.users.email', 'app.login_failures.email'],
          'before: the email is in users, outgoing_mail and login_failures (the scan finds what is there)');

select is(test.answer_of($$ select api.me_delete(test.token('zqdel'), '{}', '{"password": "wrong horse"}') $$),
          'PT403 wrong_password', 'a wrong password is 403 wrong_password');
select is((select email::text || display_name from app.users where id = test.uid('zqdel')), 'zqdel@example.comZebediah Quux',
          '... and the account is unchanged');
select is(test.error_of($$ select api.me_get(test.token('zqdel'), '{}', '{}') $$), 'ok', '... and its token still works');
select is(test.error_of($$ select api.me_delete(test.token('zqdel'), '{}', '{}') $$), 'PT400 invalid_field', 'the password is required');
select is(test.error_of($$ select api.me_delete(test.token('zqdel'), '{}', '{"password": "correct horse", "now": true}') $$),
          'PT400 invalid_field', 'an unknown key is refused');

select is(test.answer_of($$ select api.me_delete(test.token('zqdel'), '{}', '{"password": "correct horse"}') $$), 'ok',
          'the right password deletes the account');
select is(test.error_of($$ select api.me_get(test.token('zqdel'), '{}', '{}') $$), 'PT401 unauthorized', 'its old token is 401');
select is(test.error_of($$ select api.me_delete(test.token('zqdel'), '{}', '{"password": "correct horse"}') $$), 'PT401 unauthorized',
          'deleting again is 401');
select is(test.columns_holding(array['zqdel@example.com']), '{}'::text[], 'no table holds the old email');
select is(test.columns_holding(array['Zebediah Quux']), '{}'::text[], 'no table holds the old display name');
select is((select row(email, password_hash, display_name, deleted_at is not null)::text from app.users where id = test.uid('zqdel')),
          row(null::citext, null::text, 'Deleted user', true)::text, 'a tombstone stays: no email, no password, ''Deleted user''');
select is_empty('select * from report.ledger_reconciliation', 'the ledger still reconciles with every balance');
select is((select count(*)::integer from app.coin_ledger where user_id = test.uid('zqdel')), 2, 'the grant and the purchase stay in the ledger');
select is((select count(*)::integer from app.focus_sessions where user_id = test.uid('zqdel')), 1, 'the session stays for the reports');
select is((select count(*)::integer from app.auth_tokens where user_id = test.uid('zqdel'))
          + (select count(*)::integer from app.avatars where user_id = test.uid('zqdel'))
          + (select count(*)::integer from app.password_resets where user_id = test.uid('zqdel'))
          + (select count(*)::integer from app.blocks where test.uid('zqdel') in (blocker, blocked)), 0,
          'tokens, avatar, reset codes and blocks are gone');
select is((api.friends_list(test.token('pal'), '{}', '{}')).body -> 'friends', '[]'::jsonb, 'the friend lost the friendship');
select is((api.friend_requests_list(test.token('fan'), '{}', '{}')).body -> 'outgoing', '[]'::jsonb, 'the pending request to it is gone');
select is((select array_agg(action order by id) from app.friendship_events where actor = test.uid('zqdel')),
          array['asked', 'removed', 'declined'], '... both recorded in the friendship history');
select is((select array_agg(reporter = test.uid('zqdel') order by created_at) from app.user_reports
           where test.uid('zqdel') in (reporter, reported)), array[true],
          'the report it made stays (from the anonymous id); the report about it is gone');
select is(test.answer_of($$ select api.auth_login(null, '{}', '{"email": "zqdel@example.com", "password": "correct horse"}') $$),
          'PT401 invalid_credentials', 'its email and password no longer sign in (an attempt like any with an unknown email)');
select is(test.error_of($$ select api.lock_user(test.uid('zqdel')) $$), 'PT401 unauthorized',
          'a request that waited for the deleted account''s lock gets 401 and adds nothing');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "ZQDEL@example.com", "password": "another horse", "display_name": "New"}') $$),
          'ok', 'the email may register again');
select isnt((select id from app.users where email = 'zqdel@example.com'), test.uid('zqdel'), '... as a new account');

select * from finish();
rollback;
