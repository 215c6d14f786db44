-- Friend requests by email are throttled per sender, unknown emails included, at a rate a DBA
-- sets in app.social_settings.
begin;
select plan(5);
select test.new_user('prober');
select test.new_user('target');
update app.social_settings set max_friend_requests = 3, friend_request_window = interval '1 hour';
create function pg_temp.ask(email text) returns text language sql as $$
    select test.answer_of(format($f$ select api.friend_requests_create(test.token('prober'), '{}', %L) $f$, jsonb_build_object('email', email)))
$$;

select is(array[pg_temp.ask('guess1@example.com'), pg_temp.ask('guess2@example.com'), pg_temp.ask('guess3@example.com')],
          array['PT404 user_not_found', 'PT404 user_not_found', 'PT404 user_not_found'], 'three unknown emails are 404...');
select is(pg_temp.ask('target@example.com'), 'PT429 too_many_friend_requests', '... and then even a real one is 429');
select is((api.friend_requests_create(test.token('prober'), '{}', '{"email": "target@example.com"}')).retry_after, 3600,
          '... with Retry-After until the oldest attempt leaves the window');
update app.friend_request_attempts set attempted_at = attempted_at - interval '61 minutes' where user_id = test.uid('prober');
select is(pg_temp.ask('target@example.com'), 'ok', 'once the window passed, requests go through again');
select is((select count(*)::integer from app.friend_request_attempts where user_id = test.uid('prober') and attempted_at > now() - interval '1 hour'),
          1, 'attempts are counted per sender');

select * from finish();
rollback;
