-- What the push sender calls: api.push_claim (due rows, oldest first, as messages) and
-- api.push_settle (sent and failed rows go, dead tokens go, retries back off and are bounded).
begin;
select plan(12);
select test.new_user('ada');
select test.new_user('bo');
create function pg_temp.apns(n integer) returns text language sql as $$ select repeat(lpad(to_hex(n), 2, '0'), 32) $$;
select api.me_push_tokens_update(test.token('ada'), '{}', jsonb_build_object('token', pg_temp.apns(n), 'platform', 'apns',
                                                                             'environment', 'sandbox'))
from generate_series(1, 2) n;
select api.friend_requests_create(test.token('bo'), '{}', '{"email": "ada@example.com"}');
update app.push_outbox set send_after = now() + interval '1 minute' where token = pg_temp.apns(1);
create temporary table claimed on commit drop as select m from jsonb_array_elements(api.push_claim(10, '{apns,fcm}')) m;

select is((select count(*)::integer from claimed), 1, 'a row not yet due is not claimed');
select is((select array_agg(k order by k) from claimed, jsonb_object_keys(m) k),
          array['attempts', 'data', 'environment', 'id', 'loc_args', 'loc_key', 'locale', 'platform', 'token', 'type'],
          'a message has exactly the documented keys');
select is((select array_agg(k order by k) from claimed, jsonb_object_keys(m -> 'data') k),
          array['event_id', 'request_id', 'type', 'user_id'], 'its data holds ids and the type only');
select is((select m ->> 'token' from claimed), pg_temp.apns(2), '... for the due token');

update app.push_outbox set send_after = now();
create function pg_temp.id(n integer) returns bigint language sql as $$
    select id from app.push_outbox where token = pg_temp.apns(n)
$$;
select is(api.push_settle(jsonb_build_array(jsonb_build_object('id', pg_temp.id(1), 'outcome', 'retry', 'retry_after', 30, 'error', '429 TooManyRequests'),
                                            jsonb_build_object('id', pg_temp.id(2), 'outcome', 'sent'))),
          '{"sent": 1, "dead": 0, "retried": 1, "dropped": 0, "failed": 0}'::jsonb, 'settle answers the counts');
select is((select row(attempts, send_after, last_error)::text from app.push_outbox where token = pg_temp.apns(1)),
          row(1, now() + interval '30 seconds', '429 TooManyRequests')::text, 'a retry waits for Retry-After when it is longer than the backoff');
select ok(not exists (select from app.push_outbox where token = pg_temp.apns(2)), 'a sent row is gone');
select is(api.push_settle(jsonb_build_array(jsonb_build_object('id', pg_temp.id(1), 'outcome', 'retry'))) ->> 'retried', '1',
          'a retry without Retry-After');
select is((select send_after from app.push_outbox where token = pg_temp.apns(1)), now() + interval '4 seconds',
          '... backs off 2^attempts seconds');
update app.push_outbox set attempts = 4 where token = pg_temp.apns(1);
select is(api.push_settle(jsonb_build_array(jsonb_build_object('id', pg_temp.id(1), 'outcome', 'retry'))) ->> 'dropped', '1',
          'the fifth failed attempt drops the row');

insert into app.push_outbox (token, event_id, type, data)
values (pg_temp.apns(1), -1, 'friend_request.received', '{}'), (pg_temp.apns(1), -2, 'friend_request.accepted', '{}');
select is(api.push_settle((select jsonb_agg(jsonb_build_object('id', o.id, 'outcome', 'dead')) from app.push_outbox o
                           where o.token = pg_temp.apns(1) and o.event_id = -1)) ->> 'dead', '1', 'a dead token');
select ok(not exists (select from app.push_tokens where token = pg_temp.apns(1))
          and not exists (select from app.push_outbox where token = pg_temp.apns(1)), '... is deleted, with what was queued for it');

select * from finish();
rollback;
