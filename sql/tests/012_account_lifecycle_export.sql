-- GET /me/export: everything stored about the caller in one document, and nothing of others.
begin;
select plan(10);
select test.new_user('ex');
select test.new_user('buddy');
select app.grant_coins(test.uid('ex'), 200, 'export test');
select api.shop_purchases_create(test.token('ex'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')));
select test.session('ex', test.day_start(), 25, 'a1a1a1a1-0000-4000-8000-000000000001');
select api.focus_sessions_rate(test.token('ex'), '{"id": "a1a1a1a1-0000-4000-8000-000000000001"}', '{"rating": "good"}');
select api.friend_requests_create(test.token('ex'), '{}', '{"email": "buddy@example.com"}');
select api.users_report_create(test.token('ex'), jsonb_build_object('id', test.uid('buddy')), '{"reason": "other", "details": "test"}');
create temporary table doc on commit drop as select (api.me_export_get(test.token('ex'), '{}', '{}')).body as body;

select is((select array_agg(k order by k) from jsonb_object_keys((select body from doc)) k),
          array['avatar', 'blocks', 'exported_at', 'friendships', 'items', 'ledger', 'password_resets', 'profile', 'reports_made',
                'sessions', 'tips_shown', 'tokens'], 'the export has every part');
select is((select body -> 'profile' ->> 'email' from doc), 'ex@example.com', 'the profile');
select is((select jsonb_array_length(body -> 'items') from doc), 4, 'the three starters and the fox');
select is((select body -> 'sessions' -> 0 ->> 'rating' from doc), 'good', 'sessions with their rating');
select is((select jsonb_array_length(body -> 'tips_shown') from doc), 1, 'the tip shown');
select is((select jsonb_agg(e -> 'amount' order by e ->> 'created_at') from doc, jsonb_array_elements(body -> 'ledger') e),
          '[200, -180]'::jsonb, 'the ledger');
select is((select body -> 'friendships' -> 0 ->> 'status' from doc), 'pending', 'friendships and requests');
select is((select body -> 'reports_made' -> 0 ->> 'reason' from doc), 'other', 'reports made');
select is((select jsonb_array_length(body -> 'tokens') from doc), 1, 'tokens (metadata only)');
select ok((select body::text from doc) !~ 'buddy@example.com', 'nothing of another user but their card');

select * from finish();
rollback;
