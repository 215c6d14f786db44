-- Friendship state machine: every transition, every refusal, and the events recorded;
-- the friends list (with a friend's minutes today) and a friend's island.
begin;
select plan(36);
select test.new_user(name) from unnest(array['ann', 'ben', 'cat', 'dan']) as name;
-- The pair's row (pending or accepted), its status, and its history, by the two names.
create function pg_temp.request(a text, b text) returns uuid language sql as
$$ select id from app.friendships where user_low = least(test.uid(a), test.uid(b)) and user_high = greatest(test.uid(a), test.uid(b)) $$;
create function pg_temp.status(a text, b text) returns text language sql as
$$ select coalesce((select status from app.friendships where id = pg_temp.request(a, b)), 'none') $$;
create function pg_temp.events(a text, b text) returns text[] language sql as
$$ select coalesce(array_agg(action order by id), '{}') from app.friendship_events
   where user_low = least(test.uid(a), test.uid(b)) and user_high = greatest(test.uid(a), test.uid(b)) $$;

-- ask
select is(test.error_of($$ select api.friend_requests_create(test.token('ann'), '{}', '{"email": "BEN@Example.Com"}') $$), 'ok',
          'ann asks ben by email, in any letter case');
select is(pg_temp.status('ann', 'ben'), 'pending', 'the request is pending');
select is((select (r.status, r.body -> 'request' ->> 'id') from api.friend_requests_create(test.token('ann'), '{}', '{"email": "ben@example.com"}') r),
          (200, pg_temp.request('ann', 'ben')::text), 'asking twice answers 200 with the pending request');
select is((api.friend_requests_create(test.token('ann'), '{}', '{"email": "ben@example.com"}')).body ->> 'kind', 'friend_request',
          '... which names its shape in kind (the discriminator)');
select is(test.error_of($$ select api.friend_requests_create(test.token('ann'), '{}', '{"email": "ann@example.com"}') $$), 'PT422 cannot_friend_self',
          'asking yourself is cannot_friend_self');
select is(test.answer_of($$ select api.friend_requests_create(test.token('ann'), '{}', '{"email": "nobody@example.com"}') $$), 'PT404 user_not_found',
          'an unknown email is user_not_found');
select is(test.error_of($$ select api.friend_requests_create(test.token('ann'), '{}', '{"email": "not an email"}') $$), 'PT400 invalid_email',
          'a malformed email is invalid_email, as on register');
select is((api.friend_requests_list(test.token('ben'), '{}', '{}')).body -> 'incoming' -> 0 -> 'from' ->> 'display_name', 'Ann',
          'ben sees ann''s request as incoming');
select is((api.friend_requests_list(test.token('ann'), '{}', '{}')).body -> 'outgoing' -> 0 -> 'to' ->> 'display_name', 'Ben',
          '... and ann sees it as outgoing');

-- who may act on a request
select is(test.error_of($$ select api.friend_requests_accept(test.token('ann'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}') $$),
          'PT404 friend_request_not_found', 'the sender cannot accept');
select is(test.error_of($$ select api.friend_requests_accept(test.token('cat'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}') $$),
          'PT404 friend_request_not_found', 'a third user cannot accept');
select is(test.error_of($$ select api.friend_requests_decline(test.token('cat'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}') $$),
          'PT404 friend_request_not_found', 'a third user cannot decline');
select is(test.error_of($$ select api.friend_requests_delete(test.token('ben'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}') $$),
          'PT404 friend_request_not_found', 'the receiver cannot cancel');
select is(test.error_of($$ select api.friend_requests_delete(test.token('cat'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}') $$),
          'PT404 friend_request_not_found', 'a third user cannot cancel');
select is(pg_temp.status('ann', 'ben'), 'pending', 'refused actions changed nothing');

-- accept
select is(test.error_of($$ select api.friend_requests_accept(test.token('ben'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}') $$),
          'ok', 'the receiver accepts');
select is(pg_temp.status('ann', 'ben'), 'accepted', 'they are friends');
select is((api.friend_requests_accept(test.token('ben'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}')).body ->> 'kind',
          'friend_added', 'accepting (again) answers kind friend_added beside the friend');
select is((api.friend_requests_accept(test.token('ben'), jsonb_build_object('id', pg_temp.request('ann', 'ben')), '{}')).body -> 'friend' ->> 'id',
          test.uid('ann')::text, 'accepting twice answers the friend again');
select is(test.error_of($$ select api.friend_requests_create(test.token('ben'), '{}', '{"email": "ann@example.com"}') $$), 'PT409 already_friends',
          'asking a friend is already_friends');
select is((select jsonb_array_length((api.friends_list(test.token('ann'), '{}', '{}')).body -> 'friends')), 1, 'ann sees one friend');
-- ben focused 30 minutes ending at 00:00 UTC today and 60 minutes ending an hour before (yesterday).
select test.session('ben', test.day_start(), 30);
select test.session('ben', test.day_start() - interval '1 hour', 60);
select is((api.friends_list(test.token('ann'), '{}', '{}')).body -> 'friends' -> 0 -> 'today_minutes', '30'::jsonb,
          'a friend''s today_minutes count sessions that ended today (UTC), not yesterday''s');
select is((api.users_get(test.token('ann'), jsonb_build_object('id', test.uid('ben')), '{}')).body ->> 'display_name', 'Ben',
          'ann sees ben''s island');
select is(test.error_of($$ select api.users_get(test.token('cat'), jsonb_build_object('id', test.uid('ben')), '{}') $$),
          'PT404 user_not_found', 'a stranger''s island is 404');

-- remove
select is(test.error_of($$ select api.friends_delete(test.token('ben'), jsonb_build_object('user_id', test.uid('ann')), '{}') $$),
          'ok', 'ben removes ann');
select is(pg_temp.status('ann', 'ben'), 'none', 'the pair is gone');
select is(test.error_of($$ select api.friends_delete(test.token('ben'), jsonb_build_object('user_id', test.uid('ann')), '{}') $$),
          'PT404 not_friends', 'removing again is not_friends');
select is(pg_temp.events('ann', 'ben'), array['asked', 'accepted', 'removed'], 'each transition is recorded');

-- decline, cancel, and asking back
select api.friend_requests_create(test.token('cat'), '{}', '{"email": "dan@example.com"}');
select is(test.error_of($$ select api.friend_requests_decline(test.token('dan'), jsonb_build_object('id', pg_temp.request('cat', 'dan')), '{}') $$),
          'ok', 'the receiver declines');
select is(pg_temp.status('cat', 'dan'), 'none', 'a declined request is gone');
select api.friend_requests_create(test.token('cat'), '{}', '{"email": "dan@example.com"}');
select is(test.error_of($$ select api.friend_requests_delete(test.token('cat'), jsonb_build_object('id', pg_temp.request('cat', 'dan')), '{}') $$),
          'ok', 'the sender cancels');
select api.friend_requests_create(test.token('cat'), '{}', '{"email": "dan@example.com"}');
select is((select (r.status, r.body ->> 'kind', r.body -> 'auto_accepted') from api.friend_requests_create(test.token('dan'), '{}', '{"email": "cat@example.com"}') r),
          (200, 'friend_added'::text, 'true'::jsonb), 'asking someone who asked you accepts both: 200, kind friend_added, auto_accepted');
select is(pg_temp.events('cat', 'dan'), array['asked', 'declined', 'asked', 'cancelled', 'asked', 'accepted'], '... and every step is recorded');
select is(test.error_of($$ delete from app.friendship_events $$), '23001', 'the history cannot be rewritten');

-- at most 50 pending outgoing requests
insert into app.users (email, password_hash, display_name, email_verified_at)
select 'bulk' || n || '@example.com', '$2a$04$abcdefghijklmnopqrstuu', 'Bulk', now() from generate_series(1, 51) n;
select count(api.friend_requests_create(test.token('ann'), '{}', jsonb_build_object('email', 'bulk' || n || '@example.com'))) from generate_series(1, 50) n;
select is(test.error_of($$ select api.friend_requests_create(test.token('ann'), '{}', '{"email": "bulk51@example.com"}') $$), 'PT429 too_many_pending',
          'the 51st pending request is too_many_pending');
select is(test.error_of($$ insert into app.friendships (user_low, user_high, requested_by, status)
                           select greatest(a, b), least(a, b), a, 'pending'
                           from (select test.uid('ben') a, test.uid('dan') b) x $$),
          '23514', 'the table itself refuses an unordered pair');

select * from finish();
rollback;
