-- DELETE /me erases by the account's id everywhere: sign-in failures, queued reset requests and
-- mail under an address it held before an email change or only asked for (pending), its email
-- verification codes, the 409 email_taken counts of addresses it used, its stored
-- Idempotency-Key answers under 'user:' and 'email:' scopes (sealed ones included), a friend's
-- stored answer naming it, its sign-in addresses. Then a scan of every column of every table
-- (from the catalog: test.columns_holding) finds none of its emails, its name, its bio, its session tags nor the addresses
-- it signed in or failed from. Other people's rows stay.
begin;
select plan(18);
select test.new_user('zqera', 'Zenobia Quillfeather');
select test.new_user(name) from unnest(array['pal', 'fan']) as name;
-- As the server passes them: the request's address and its seal key (sealed answers need it).
create function pg_temp.k(key text, address text default '192.0.2.1') returns jsonb language sql as $$
    select jsonb_build_object('idempotency_key', key, 'client_ip', address, 'seal_key', repeat('k', 40))
$$;
create function pg_temp.needles() returns text[] language sql as $$
    select array['zqera@example.com', 'zqera.new@example.com', 'zqera.next@example.com', 'Zenobia Quillfeather', 'Keeper of the marsh lanterns',
                 'lantern polishing',
                 '198.51.100.23', '203.0.113.77', '203.0.113.78', '2001:db8::77']
$$;
-- The code of the newest verification mail to an address (as the HTTP tests read it).
create function pg_temp.mailed_code(address text) returns text language sql as $$
    select substring(m.body from 'Your code is (\d{8})') from app.outgoing_mail m
    where m.recipient = address and m.subject ~ 'Confirm' order by m.id desc limit 1
$$;

select api.me_update(test.token('zqera'), '{}', '{"bio": "Keeper of the marsh lanterns"}');
select api.focus_sessions_start(test.token('zqera'), '{}', '{"planned_minutes": 25, "tag": "Lantern polishing"}');
-- Under the first address: a sign-in from an address, a failed one from another, a reset
-- request (queued until the mailer takes it), a sign-up refused 409 email_taken (counted by
-- address), each through an Idempotency-Key.
select api.idempotent('api.auth_login', null, pg_temp.k('in-1', '198.51.100.23'),
                      '{"email": "zqera@example.com", "password": "correct horse"}');
select api.idempotent('api.auth_login', null, pg_temp.k('in-2', '203.0.113.77'),
                      '{"email": "zqera@example.com", "password": "wrong horse"}');
select api.idempotent('api.auth_password_reset_create', null, pg_temp.k('reset-1', '203.0.113.77'), '{"email": "zqera@example.com"}');
select api.idempotent('api.auth_register', null, pg_temp.k('again', '203.0.113.77'),
                      '{"email": "zqera@example.com", "password": "correct horse", "display_name": "Zenobia Quillfeather"}');
-- The email changes, confirmed with the mailed code; the old address's rows stay behind it.
select api.idempotent('api.me_email_update', test.token('zqera'), pg_temp.k('move-1', '198.51.100.23'),
                      '{"password": "correct horse", "email": "zqera.new@example.com"}');
select is((select (r).body ->> 'email' from api.idempotent('api.me_email_verification_confirm', test.token('zqera'), pg_temp.k('move-1-code', '198.51.100.23'),
                                                 jsonb_build_object('code', pg_temp.mailed_code('zqera.new@example.com'))) as r),
          'zqera.new@example.com', 'the email change is confirmed with the mailed code');
select api.idempotent('api.auth_login', null, pg_temp.k('in-3', '2001:db8::77'),
                      '{"email": "zqera.new@example.com", "password": "wrong horse"}');
select api.idempotent('api.auth_password_reset_create', null, pg_temp.k('reset-2', '203.0.113.78'), '{"email": "zqera.new@example.com"}');
-- A friend asks by the new, verified email and keeps the answer (it names the user); the user accepts.
select api.idempotent('api.friend_requests_create', test.token('pal'), pg_temp.k('ask-1'), '{"email": "zqera.new@example.com"}');
select api.idempotent('api.friend_requests_create', test.token('zqera'), pg_temp.k('ask-back'), '{"email": "pal@example.com"}');
-- Another change, still pending at the deletion: its code mail, a failure and a reset request under it.
select api.idempotent('api.me_email_update', test.token('zqera'), pg_temp.k('move-2', '198.51.100.23'),
                      '{"password": "correct horse", "email": "zqera.next@example.com"}');
select api.idempotent('api.auth_login', null, pg_temp.k('in-4', '203.0.113.78'),
                      '{"email": "zqera.next@example.com", "password": "wrong horse"}');
select api.idempotent('api.auth_password_reset_create', null, pg_temp.k('reset-3', '203.0.113.78'), '{"email": "zqera.next@example.com"}');
-- Someone else's rows, which must stay: a failed sign-in, a stored answer, a queued reset
-- request, a 409 counted for their address.
select api.auth_login(null, '{"client_ip": "203.0.113.99"}', '{"email": "fan@example.com", "password": "wrong horse"}');
select api.idempotent('api.me_update', test.token('fan'), pg_temp.k('fan-1'), '{"display_name": "Fan Club"}');
select api.auth_password_reset_create(null, '{"client_ip": "203.0.113.99"}', '{"email": "fan@example.com"}');
select api.auth_register(null, '{"client_ip": "203.0.113.99"}',
                         '{"email": "pal@example.com", "password": "correct horse", "display_name": "Fan"}');

-- A sign-up code mailed to its first address and one to the pending one (the step-up of a
-- shared address past its 409 budget), as api.send_signup_code leaves them.
insert into app.signup_codes (email, client_ip, digest, expires_at)
values ('zqera@example.com', '192.0.2.99', sha256('12345678'::bytea), now() + interval '15 minutes'),
       ('zqera.next@example.com', '192.0.2.99', sha256('87654321'::bytea), now() + interval '15 minutes');

select ok(test.columns_holding(pg_temp.needles()) @> array['app.email_verifications.email', 'app.idempotency_keys.reply',
              'app.idempotency_keys.scope', 'app.login_addresses.client_ip', 'app.login_failures.client_ip',
              'app.login_failures.email', 'app.outgoing_mail.recipient', 'app.password_reset_requests.email',
              'app.taken_email_answers.client_ip', 'app.focus_sessions.tag', 'app.users.bio', 'app.users.display_name', 'app.users.email',
              'app.signup_codes.email'],
          'before: the scan finds the emails, the name, the bio and the addresses where they are');
select is((select array_agg(email::text order by id) from app.password_reset_requests where email like 'zqera%'),
          array['zqera@example.com', 'zqera.new@example.com', 'zqera.next@example.com'],
          '... reset requests queued under each address');
select is((select count(*)::integer from app.login_failures where email = 'zqera@example.com'), 1,
          '... a failure under the old address');
select is(api.profile(test.uid('zqera')) ->> 'pending_email', 'zqera.next@example.com', '... and an address still pending');
select ok(exists (select from app.idempotency_keys where scope = 'email:zqera@example.com' and sealed_reply is not null),
          '... sealed answers under the first address');
select ok(exists (select from app.idempotency_keys where scope = 'user:' || test.uid('pal') and strpos(reply::text, 'Zenobia Quillfeather') > 0),
          '... and the friend''s stored answer naming the user');

select is((select (r).status from api.idempotent('api.me_delete', test.token('zqera'), pg_temp.k('bye'),
                                                 '{"password": "correct horse"}') as r), null::integer,
          'DELETE /me with the right password');
select is(test.columns_holding(pg_temp.needles()), '{}'::text[],
          'after: no column of any table holds any of its emails, the name, the bio or an address it used');
select is((select count(*)::integer from app.login_failures where user_id = test.uid('zqera'))
          + (select count(*)::integer from app.outgoing_mail where user_id = test.uid('zqera'))
          + (select count(*)::integer from app.password_reset_requests where user_id = test.uid('zqera'))
          + (select count(*)::integer from app.email_verifications where user_id = test.uid('zqera'))
          + (select count(*)::integer from app.login_addresses where user_id = test.uid('zqera')), 0,
          'no failure, mail, reset request, verification code or sign-in address of the account stays');
select is((select array_agg(key) from app.idempotency_keys where user_id = test.uid('zqera') or scope like '%zqera%'), array['bye'],
          'of its Idempotency-Keys only the deletion''s own stays');
select is((select count(*)::integer from app.idempotency_keys where scope = 'user:' || test.uid('pal')), 0,
          'the friend''s stored answer naming the user is gone');
select is((select to_jsonb(r) from api.idempotent('api.me_delete', test.token('zqera'), pg_temp.k('bye'), '{"password": "correct horse"}') as r),
          to_jsonb(api.ok(null)), 'a retried deletion still answers as the first (204, no body: the kept key names nobody)');
select is(test.answer_of($$ select api.idempotent('api.friend_requests_create', test.token('pal'), pg_temp.k('ask-1'),
                                                  '{"email": "zqera.new@example.com"}') $$),
          test.answer_of($$ select api.friend_requests_create(test.token('pal'), '{}', '{"email": "nobody.at.all@example.com"}') $$),
          'the friend''s retry runs again and answers as for an address without an account');
select is((select (count(*) filter (where f.email = 'fan@example.com'))::integer || '/' || (select count(*) from app.password_reset_requests q where q.email = 'fan@example.com')
                  || '/' || (select count(*) from app.taken_email_answers a where a.client_ip = '203.0.113.99')
           from app.login_failures f), '1/1/1',
          'another person''s failed sign-in, queued reset request and 409 count stay');
select is((select count(*)::integer from app.idempotency_keys where scope = 'user:' || test.uid('fan')), 1, '... and their stored answer');
select is((select email::text from app.users where id = test.uid('pal')), 'pal@example.com', '... and the friend''s account');
select is(test.error_as('focus_api', $$ select api.erase_account_traces(test.uid('pal'), 'pal@example.com', null) $$), '42501',
          'the server''s role cannot call api.erase_account_traces itself (only DELETE /me does)');

select * from finish();
rollback;
