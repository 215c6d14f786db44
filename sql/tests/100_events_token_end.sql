-- A token's end rings its user's live clients (app.auth_tokens_notify_end on `focus_events`):
-- logout, revoking a device, a password change and account deletion ring; the hourly touch
-- of last_used_at and a new sign-in do not. And what the server needs to hold a stream or a
-- long-poll: the stream and long-poll limits and the seconds until the token expires.
begin;
select plan(10);
select test.new_user('ann');
select test.new_user('ben');

-- The trigger function, watched within this transaction (its body is one pg_notify).
select trigger_is('app', 'auth_tokens', 'auth_tokens_end_deleted', 'app', 'auth_tokens_notify_end', 'deleting a token rings');
select trigger_is('app', 'auth_tokens', 'auth_tokens_end_revoked', 'app', 'auth_tokens_notify_end', 'revoking a token rings');
create temp table rung (payload text);
grant insert on rung to public;
create or replace function app.auth_tokens_notify_end() returns trigger language plpgsql as $$
begin
    insert into rung values (old.user_id::text || ':token');
    return null;
end
$$;

select is(((api.events_stream_open(test.token('ann'), '{}', '{}')).body - 'next' - 'user_id'),
          jsonb_build_object('max_streams', 3, 'max_polls', 5,
                             'token_expires_in', (select ceil(extract(epoch from t.expires_at - now()))::bigint
                                                  from app.auth_tokens t where t.user_id = test.uid('ann'))),
          'opening a stream or long-poll says the limits (3 streams, 5 long-polls) and when the token expires');
select is((select count(*)::integer from rung), 0, '... and rings nothing');

update app.auth_tokens set last_used_at = now() where user_id = test.uid('ann');
select api.auth_login(null, '{}', '{"email": "ann@example.com", "password": "correct horse"}');
select is((select count(*)::integer from rung), 0, 'touching a token and signing in again ring nothing');

select api.auth_logout(test.token('ann'), '{}', '{}');
select is(array(select payload from rung), array[test.uid('ann') || ':token'], 'logout rings the user''s clients');
delete from rung;
select api.me_password_update((api.auth_login(null, '{}', '{"email": "ann@example.com", "password": "correct horse"}')).body ->> 'token',
                              '{}', '{"current_password": "correct horse", "new_password": "new horse 1"}');
select ok((select count(*) > 0 and bool_and(payload = test.uid('ann') || ':token') from rung),
          'a password change rings: every other token ended');
delete from rung;
select api.me_tokens_delete(test.token('ben'), jsonb_build_object('id', (select t.id from app.auth_tokens t where t.user_id = test.uid('ben'))), '{}');
select is(array(select payload from rung), array[test.uid('ben') || ':token'], 'revoking a device rings');
delete from rung;
select api.me_delete((api.auth_login(null, '{}', '{"email": "ann@example.com", "password": "new horse 1"}')).body ->> 'token',
                     '{}', '{"password": "new horse 1"}');
select ok((select count(*) > 0 and bool_and(payload = test.uid('ann') || ':token') from rung), 'deleting the account rings');
select is(test.error_of($$ select api.events_stream_open(test.token('ben'), '{}', '{}') $$), 'PT401 unauthorized',
          'a stream cannot open on an ended token');

select * from finish();
rollback;
