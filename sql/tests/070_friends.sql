-- Friendship state machine: every transition, every refusal, and the events recorded.
begin;
select plan(30);
create temporary table people on commit drop as
select name, test.new_user(name || '@friends.example', initcap(name)) as account
from unnest(array['ann', 'ben', 'cat', 'dan']) as name;
create function pg_temp.token(who text) returns text language sql as $$ select account ->> 'token' from people where name = who $$;
create function pg_temp.uid(who text) returns uuid language sql as $$ select test.user_id(account) from people where name = who $$;
create function pg_temp.ask(who text, email text) returns text language sql as
$$ select test.error_of(format('select api.ask_friend(%L, ''{}'', %L)', pg_temp.token(who), jsonb_build_object('email', email))) $$;
create function pg_temp.act(fn text, who text, request uuid) returns text language sql as
$$ select test.error_of(format('select api.%s(%L, %L, ''{}'')', fn, pg_temp.token(who), jsonb_build_object('id', request))) $$;
create function pg_temp.request(a text, b text) returns uuid language sql as
$$ select id from app.friendships where user_low = least(pg_temp.uid(a), pg_temp.uid(b)) and user_high = greatest(pg_temp.uid(a), pg_temp.uid(b)) $$;
create function pg_temp.status(a text, b text) returns text language sql as
$$ select coalesce((select status from app.friendships where id = pg_temp.request(a, b)), 'none') $$;
create function pg_temp.events(a text, b text) returns text[] language sql as
$$ select coalesce(array_agg(action order by id), '{}') from app.friendship_events
   where user_low = least(pg_temp.uid(a), pg_temp.uid(b)) and user_high = greatest(pg_temp.uid(a), pg_temp.uid(b)) $$;

-- ask
select is(pg_temp.ask('ann', 'BEN@Friends.Example'), 'ok', 'ann asks ben by email, in any letter case');
select is(pg_temp.status('ann', 'ben'), 'pending', 'the request is pending');
select is(pg_temp.ask('ann', 'ben@friends.example'), 'PT409 request_pending', 'asking twice is request_pending');
select is(pg_temp.ask('ann', 'ann@friends.example'), 'PT422 cannot_friend_self', 'asking yourself is cannot_friend_self');
select is(pg_temp.ask('ann', 'nobody@friends.example'), 'PT404 user_not_found', 'an unknown email is user_not_found');

-- who may act on a request
select is(pg_temp.act('accept_friend', 'ann', pg_temp.request('ann', 'ben')), 'PT404 friend_request_not_found', 'the sender cannot accept');
select is(pg_temp.act('accept_friend', 'cat', pg_temp.request('ann', 'ben')), 'PT404 friend_request_not_found', 'a third user cannot accept');
select is(pg_temp.act('decline_friend', 'cat', pg_temp.request('ann', 'ben')), 'PT404 friend_request_not_found', 'a third user cannot decline');
select is(pg_temp.act('cancel_friend_request', 'ben', pg_temp.request('ann', 'ben')), 'PT404 friend_request_not_found', 'the receiver cannot cancel');
select is(pg_temp.act('cancel_friend_request', 'cat', pg_temp.request('ann', 'ben')), 'PT404 friend_request_not_found', 'a third user cannot cancel');
select is(pg_temp.status('ann', 'ben'), 'pending', 'refused actions changed nothing');

-- accept
select is(pg_temp.act('accept_friend', 'ben', pg_temp.request('ann', 'ben')), 'ok', 'the receiver accepts');
select is(pg_temp.status('ann', 'ben'), 'accepted', 'they are friends');
select is(pg_temp.act('accept_friend', 'ben', pg_temp.request('ann', 'ben')), 'PT404 friend_request_not_found', 'accepting twice is 404');
select is(pg_temp.ask('ben', 'ann@friends.example'), 'PT409 already_friends', 'asking a friend is already_friends');
select is((select jsonb_array_length((api.friends(pg_temp.token('ann'), '{}', '{}')).body -> 'friends')), 1, 'ann sees one friend');
select is((api.user_island(pg_temp.token('ann'), jsonb_build_object('id', pg_temp.uid('ben')), '{}')).body ->> 'display_name', 'Ben',
          'ann sees ben''s island');
select is(test.error_of(format('select api.user_island(%L, %L, ''{}'')', pg_temp.token('cat'), jsonb_build_object('id', pg_temp.uid('ben')))),
          'PT404 user_not_found', 'a stranger''s island is 404');

-- remove
select is(test.error_of(format('select api.remove_friend(%L, %L, ''{}'')', pg_temp.token('ben'), jsonb_build_object('user_id', pg_temp.uid('ann')))),
          'ok', 'ben removes ann');
select is(pg_temp.status('ann', 'ben'), 'none', 'the pair is gone');
select is(test.error_of(format('select api.remove_friend(%L, %L, ''{}'')', pg_temp.token('ben'), jsonb_build_object('user_id', pg_temp.uid('ann')))),
          'PT404 not_friends', 'removing again is not_friends');
select is(pg_temp.events('ann', 'ben'), array['asked', 'accepted', 'removed'], 'each transition is recorded');

-- decline, cancel, and asking back
select 1 from pg_temp.ask('cat', 'dan@friends.example');
select is(pg_temp.act('decline_friend', 'dan', pg_temp.request('cat', 'dan')), 'ok', 'the receiver declines');
select is(pg_temp.status('cat', 'dan'), 'none', 'a declined request is gone');
select 1 from pg_temp.ask('cat', 'dan@friends.example');
select is(pg_temp.act('cancel_friend_request', 'cat', pg_temp.request('cat', 'dan')), 'ok', 'the sender cancels');
select 1 from pg_temp.ask('cat', 'dan@friends.example');
select is((api.ask_friend(pg_temp.token('dan'), '{}', '{"email": "cat@friends.example"}')).body -> 'auto_accepted', 'true'::jsonb,
          'asking someone who asked you accepts both');
select is(pg_temp.events('cat', 'dan'), array['asked', 'declined', 'asked', 'cancelled', 'asked', 'accepted'], '... and every step is recorded');
select is(test.error_of($$ delete from app.friendship_events $$), '23001', 'the history cannot be rewritten');

-- at most 50 pending outgoing requests
insert into app.users (email, password_hash, display_name)
select 'bulk' || n || '@friends.example', '$2a$04$abcdefghijklmnopqrstuu', 'Bulk' from generate_series(1, 51) n;
select count(pg_temp.ask('ann', 'bulk' || n || '@friends.example')) from generate_series(1, 50) n;
select is(pg_temp.ask('ann', 'bulk51@friends.example'), 'PT429 too_many_pending', 'the 51st pending request is too_many_pending');
select is(test.error_of($$ insert into app.friendships (user_low, user_high, requested_by, status)
                           select greatest(a, b), least(a, b), a, 'pending'
                           from (select pg_temp.uid('ben') a, pg_temp.uid('dan') b) x $$),
          '23514', 'the table itself refuses an unordered pair');

select * from finish();
rollback;
