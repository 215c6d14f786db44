-- The push outbox: written with the event in its transaction (friend request received and
-- accepted), one row per live push token of the recipient, ids only; nothing for a blocked
-- pair, a muted type, or a rolled-back change; quiet hours move send_after to their end.
begin;
select plan(18);
select test.new_user('ada');
select test.new_user('bo');
select test.new_user('cy');
select test.new_user('di');
select test.new_user('eve');
create function pg_temp.apns(n integer) returns text language sql as $$ select repeat(lpad(to_hex(n), 2, '0'), 32) $$;
create temporary table phones on commit drop as
select n, (api.auth_login(null, '{}', '{"email": "ada@example.com", "password": "correct horse"}')).body ->> 'token' as token
from generate_series(1, 2) n;
select api.me_push_tokens_update(p.token, '{}', jsonb_build_object('token', pg_temp.apns(p.n), 'platform', 'apns',
                                                                   'environment', 'sandbox'))
from phones p;
select api.me_push_tokens_update(test.token('ada'), '{}', jsonb_build_object('token', 'fcm-' || repeat('x', 40), 'platform', 'fcm',
                                                                             'environment', 'production'));
select api.me_push_tokens_update(test.token('bo'), '{}', jsonb_build_object('token', pg_temp.apns(9), 'platform', 'apns',
                                                                            'environment', 'sandbox'));
create function pg_temp.queued(name text) returns bigint language sql as $$
    select count(*) from app.push_outbox o join app.push_tokens p on p.token = o.token where p.user_id = test.uid(name)
$$;

-- Bo asks Ada: one row for each of Ada's three tokens, in the event's transaction.
create temporary table asked on commit drop as
select (api.friend_requests_create(test.token('bo'), '{}', '{"email": "ada@example.com"}')).body -> 'request' ->> 'id' as id;
select is(pg_temp.queued('ada'), 3::bigint, 'Bo asks Ada: one outbox row for each of Ada''s push tokens');
select is((select array_agg(distinct o.event_id) from app.push_outbox o),
          (select array_agg(e.id) from app.events e where e.type = 'friend_request.received' and e.user_id = test.uid('ada')),
          '... tied to the friend_request.received event written with it');
select is((select array_agg(distinct o.data) from app.push_outbox o),
          array[jsonb_build_object('request_id', (select id from asked), 'user_id', test.uid('bo'))],
          '... holding the request''s and Bo''s ids only');
select is((select count(*)::integer from app.push_outbox o where o.data::text ~* 'example\.com|Bo\M'), 0, '... no address and no name');
select is(pg_temp.queued('bo'), 0::bigint, 'the one who asked is not pushed');
select is((select count(*)::integer from jsonb_array_elements(api.push_claim(10, '{apns,fcm}')) m
           where m::text ~* '@' or m -> 'loc_args' <> '["Bo"]' or m ->> 'loc_key' <> 'push.friend_request.received'),
          0, 'a claimed message carries the localisation key and Bo''s display name as its argument, no address');

-- Ada accepts: Bo's one token.
select api.friend_requests_accept(test.token('ada'), jsonb_build_object('id', (select id from asked)), '{}');
select is(pg_temp.queued('bo'), 1::bigint, 'Ada accepts: one row for Bo''s token');
select is((select type from app.push_outbox o where o.token = pg_temp.apns(9)), 'friend_request.accepted', '... of that type');

-- A revoked sign-in's token is not pushed (its row went with it).
select api.auth_logout((select token from phones where n = 1), '{}', '{}');
select is(pg_temp.queued('ada'), 2::bigint, 'a logged-out phone''s queued pushes went with its token');

-- A sign-in that expired by time: its token goes the next time its account is pushed.
update app.auth_tokens set created_at = now() - interval '40 days', last_used_at = now() - interval '31 days',
                           expires_at = now() - interval '1 day'
where digest = sha256(convert_to((select token from phones where n = 2), 'UTF8'));
delete from app.push_outbox;
insert into app.events (user_id, type, payload)
values (test.uid('ada'), 'friend_request.accepted', jsonb_build_object('request_id', gen_random_uuid(), 'user_id', test.uid('bo')));
select is(pg_temp.queued('ada'), 1::bigint, 'an expired sign-in''s token is not pushed');
select ok(not exists (select from app.push_tokens where token = pg_temp.apns(2)), '... and is deleted');

-- Blocked: nothing queued either way.
select api.users_block_create(test.token('ada'), jsonb_build_object('id', test.uid('cy')), '{}');
delete from app.push_outbox;
select is(test.error_of($$ select api.friend_requests_create(test.token('cy'), '{}', '{"email": "ada@example.com"}') $$),
          'ok', 'Cy, whom Ada blocked, asks her');
select is(pg_temp.queued('ada'), 0::bigint, 'nothing is queued for a blocked sender');
insert into app.events (user_id, type, payload)
values (test.uid('ada'), 'friend_request.received', jsonb_build_object('request_id', gen_random_uuid(), 'user_id', test.uid('cy')));
select is(pg_temp.queued('ada'), 0::bigint, '... even when such an event is written');
-- Muted: nothing queued.
select api.me_update(test.token('ada'), '{}', '{"settings": {"push": {"muted": ["friend_request.received"]}}}');
select api.friend_requests_create(test.token('di'), '{}', '{"email": "ada@example.com"}');
select is(pg_temp.queued('ada'), 0::bigint, 'a muted type queues nothing');
select api.me_update(test.token('ada'), '{}', '{"settings": {"push": {"muted": []}}}');

-- A rolled-back change queues nothing.
select is(test.error_of($$ select 1 / (count(*)::integer - 1) from api.friend_requests_create(test.token('eve'), '{}', '{"email": "ada@example.com"}') r $$),
          '22012', 'Eve asks Ada in a transaction that fails after');
select is(pg_temp.queued('ada'), 0::bigint, '... and queues nothing');

-- Quiet hours (in Ada's time zone): a push due inside them waits for their end.
update app.users set time_zone = 'Asia/Kolkata' where id = test.uid('ada');
insert into app.push_settings (user_id, quiet_start, quiet_end)
values (test.uid('ada'), (date_trunc('minute', now() at time zone 'Asia/Kolkata'))::time,
        (date_trunc('minute', now() at time zone 'Asia/Kolkata') + interval '2 hours')::time)
on conflict (user_id) do update set quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end;
select is(app.push_send_after(test.uid('ada'), now()),
          (date_trunc('minute', now() at time zone 'Asia/Kolkata') + interval '2 hours') at time zone 'Asia/Kolkata',
          'inside quiet hours a push waits for their end, in the person''s time zone');
select * from finish();
rollback;
