-- GET /me/export: everything stored about the caller in one document, and nothing of others.
begin;
select plan(15);
update app.achievements set active = false;  -- the coins and events here are this file's own; achievements: 130_achievements.sql
select test.new_user('ex');
select test.new_user('buddy');
select app.grant_coins(test.uid('ex'), 200, 'export test');
select api.shop_purchases_create(test.token('ex'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')));
select test.session('ex', test.day_start(), 25, 'a1a1a1a1-0000-4000-8000-000000000001');
select api.focus_sessions_rate(test.token('ex'), '{"id": "a1a1a1a1-0000-4000-8000-000000000001"}', '{"rating": "good"}');
select api.friend_requests_create(test.token('ex'), '{}', '{"email": "buddy@example.com"}');
select api.users_report_create(test.token('ex'), jsonb_build_object('id', test.uid('buddy')), '{"reason": "other", "details": "test"}');
select api.auth_login(null, '{"client_ip": "198.51.100.41"}', '{"email": "ex@example.com", "password": "correct horse"}');
select api.auth_login(null, '{"client_ip": "203.0.113.42"}', '{"email": "ex@example.com", "password": "wrong horse"}');
select api.auth_login(null, '{"client_ip": "198.51.100.41"}', '{"email": "ex@example.com", "password": "wrong horse"}');
select api.auth_password_reset_create(null, '{"client_ip": "198.51.100.41"}', '{"email": "ex@example.com"}');
create temporary table doc on commit drop as select (api.me_export_get(test.token('ex'), '{}', '{}')).body as body;

select is((select array_agg(k order by k) from jsonb_object_keys((select body from doc)) k),
          array['achievements', 'age_gate', 'avatar', 'blocks', 'exported_at', 'failed_sign_ins', 'friendships', 'gifts', 'identities', 'items', 'ledger', 'ledger_archived', 'mail',
                'password_resets', 'profile', 'reports_made', 'sessions', 'sign_in_addresses', 'streak_freezes', 'tips_shown', 'tokens'],
          'the export has every part');
select is((select body -> 'profile' ->> 'email' from doc), 'ex@example.com', 'the profile');
select is((select jsonb_array_length(body -> 'items') from doc), 4, 'the three starters and the fox');
select is((select body -> 'sessions' -> 0 ->> 'rating' from doc), 'good', 'sessions with their rating');
select is((select jsonb_array_length(body -> 'tips_shown') from doc), 1, 'the tip shown');
select is((select jsonb_agg(e -> 'amount' order by e ->> 'created_at') from doc, jsonb_array_elements(body -> 'ledger') e),
          '[200, -180]'::jsonb, 'the ledger');
select is((select body -> 'friendships' -> 0 ->> 'status' from doc), 'pending', 'friendships and requests');
select is((select body -> 'reports_made' -> 0 ->> 'reason' from doc), 'other', 'reports made');
select is((select jsonb_array_length(body -> 'tokens') from doc), 2, 'tokens (metadata only), the login''s too');
select is((select body -> 'sign_in_addresses' -> 0 ->> 'address' from doc), '198.51.100.41', 'the stored sign-in addresses');
select is((select jsonb_agg(f - 'failed_at' order by f ->> 'address') from doc, jsonb_array_elements(body -> 'failed_sign_ins') f),
          '[{"email": "ex@example.com", "address": "198.51.100.41"}, {"email": "ex@example.com", "address": null}]'::jsonb,
          'failed sign-ins, with the address only when the account also signed in from it (a stranger''s address is not the caller''s)');
select is((select jsonb_agg(m - array['created_at', 'sent_at']) from doc, jsonb_array_elements(body -> 'mail') m),
          jsonb_build_array(jsonb_build_object('recipient', 'ex@example.com',
                                               'subject', (select subject from app.outgoing_mail where recipient = 'ex@example.com'))),
          'mail sent to the account, without its body (a reset code in it would bypass the password)');
select is((select body -> 'streak_freezes' from doc), '[]'::jsonb, 'streak freezes: none bought');
select app.grant_coins(test.uid('ex'), 50, 'export test'), api.me_streak_freezes_create(test.token('ex'), '{}', '{}');
select is(((api.me_export_get(test.token('ex'), '{}', '{}')).body -> 'streak_freezes' -> 0) - array['id', 'bought_at'],
          '{"price": 50, "covered_day": null, "used_at": null}'::jsonb, 'streak freezes: one bought, its price, not used yet');
select ok((select body::text from doc) !~ 'buddy@example.com', 'nothing of another user but their card');

select * from finish();
rollback;
