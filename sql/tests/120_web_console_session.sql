-- The moderation console's session: sign-in is POST /auth/login's (the same 401 and throttle),
-- then moderators only; the session is a short-lived token with a CSRF token; it ends on
-- sign-out, at its expiry, when revoked like any token, and when the account stops being a
-- moderator; an app's token in the cookie is not a console session.
begin;
select plan(20);
select test.new_user(name) from unnest(array['mod', 'member', 'sus']) as name;
insert into app.moderators (user_id) select test.uid(n) from unnest(array['mod', 'sus']) n;

create function pg_temp.sign_in(name text, password text default 'correct horse') returns api.reply language sql as $$
    select api.moderation_session_create(null, '{"client_ip": "192.0.2.9", "user_agent": "browser"}',
                                         jsonb_build_object('email', name || '@example.com', 'password', password))
$$;
create temporary table session as select (pg_temp.sign_in('mod')).body;
create function pg_temp.token() returns text language sql as $$ select body ->> 'token' from session $$;
create function pg_temp.csrf() returns text language sql as $$
    select csrf_token from app.web_sessions where digest = sha256(convert_to(pg_temp.token(), 'UTF8'))
$$;

select ok(pg_temp.token() is not null, 'a moderator signs in and gets a token for the cookie');
select ok((select expires_at <= now() + interval '8 hours' from app.auth_tokens where digest = sha256(convert_to(pg_temp.token(), 'UTF8'))),
          'the session''s token expires after moderator_session_ttl (8 hours), not the app''s 30 days');
select is((select body ->> 'max_age' from session), '28800', 'max_age is the seconds left, for the cookie');
select ok(pg_temp.csrf() ~ '^[0-9a-f]{64}$', 'the session has a random CSRF token');
select is(test.answer_of($$ select pg_temp.sign_in('mod', 'wrong horse') $$), 'PT401 invalid_credentials', 'a wrong password is POST /auth/login''s 401');
select is((select count(*)::integer from app.login_failures where email = 'mod@example.com'), 1, '... recorded as a login failure');
select is(test.answer_of($$ select pg_temp.sign_in('member') $$), 'PT403 not_moderator', 'a member with the right password is 403 not_moderator');
select is((select count(*)::integer from app.auth_tokens where user_id = test.uid('member') and revoked_at is null), 1,
          '... and the token made for the check is revoked (only the sign-up''s stays)');
select api.moderation_users_suspend(pg_temp.token(), jsonb_build_object('id', test.uid('sus')),
                                    jsonb_build_object('until', api.iso(now() + interval '1 day'), 'reason', 'test'));
select is(test.error_of($$ select pg_temp.sign_in('sus') $$), 'PT403 account_suspended', 'a suspended moderator is 403 account_suspended');

-- throttled like login: max_failed_logins wrong passwords from one address, then 429
update app.auth_settings set max_failed_logins = 3;
select pg_temp.sign_in('member', 'wrong horse') from generate_series(1, 3);
select is(test.answer_of($$ select pg_temp.sign_in('member') $$), 'PT429 too_many_attempts', 'sign-in is throttled like login');

-- what is a console session
select is(test.error_of(format('select api.moderation_queue_list(%L, %L, %L)', test.token('mod'), '{}', '{}')), 'PT401 unauthorized',
          'an app''s token (no console session) is 401 on a console page');
select is(test.answer_of(format('select api.moderation_queue_list(%L, %L, %L)', pg_temp.token(), '{}', '{}')), 'ok', 'the session reads the queue');
select is(test.error_of(format('select api.moderation_session_delete(%L, %L, %L)', pg_temp.token(), '{}', '{"csrf_token": "forged"}')),
          'PT403 csrf_failed', 'sign-out without the session''s CSRF token is 403 csrf_failed');
select is(test.error_of(format('select api.moderation_session_delete(%L, %L, %L)', test.token('mod'), '{}', '{"csrf_token": "x"}')),
          'PT401 unauthorized', 'sign-out with an app''s token is 401');
select is(test.error_of(format('select api.moderation_session_delete(%L, %L, %L)', pg_temp.token(), '{}', '{"csrf_token": "x", "y": 1}')),
          'PT400 invalid_field', 'an unknown field is refused');

-- expiry, revocation, and the role taken away
update app.auth_tokens set expires_at = now() + interval '1 second', created_at = now() - interval '1 hour'
where digest = sha256(convert_to(pg_temp.token(), 'UTF8'));
update app.auth_tokens set expires_at = created_at + interval '1 minute' where digest = sha256(convert_to(pg_temp.token(), 'UTF8'));
select is(test.error_of(format('select api.moderation_audit_list(%L, %L, %L)', pg_temp.token(), '{}', '{}')), 'PT401 unauthorized',
          'an expired session is 401');
update app.auth_tokens set expires_at = now() + interval '1 hour' where digest = sha256(convert_to(pg_temp.token(), 'UTF8'));
delete from app.moderators where user_id = test.uid('mod');
select is(test.error_of(format('select api.moderation_audit_list(%L, %L, %L)', pg_temp.token(), '{}', '{}')), 'PT403 not_moderator',
          'a session whose account is no longer a moderator is 403 at once');
insert into app.moderators (user_id) values (test.uid('mod'));
select api.me_tokens_delete(test.token('mod'), jsonb_build_object('id', id), '{}')
from app.auth_tokens where digest = sha256(convert_to(pg_temp.token(), 'UTF8'));
select is(test.error_of(format('select api.moderation_audit_list(%L, %L, %L)', pg_temp.token(), '{}', '{}')), 'PT401 unauthorized',
          'a session revoked from the app (DELETE /me/tokens/{id}) is 401');

-- sign-out
delete from session;
insert into session select (pg_temp.sign_in('mod')).body;
select is(test.answer_of(format('select api.moderation_session_delete(%L, %L, %L)', pg_temp.token(), '{}',
                                jsonb_build_object('csrf_token', pg_temp.csrf()))), 'ok', 'sign-out with the CSRF token');
select is(test.error_of(format('select api.moderation_queue_list(%L, %L, %L)', pg_temp.token(), '{}', '{}')), 'PT401 unauthorized',
          '... ends the session at once');
select * from finish();
rollback;
