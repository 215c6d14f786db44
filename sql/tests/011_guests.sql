-- Guests: POST /auth/guest (the answer, the table's rule, the address's bound), what waits for
-- an upgrade, POST /me/upgrade (same id, email refused as sign-up refuses it, a double submit),
-- and the idle guests' erasure.
begin;
select plan(34);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('ann');

-- A guest from an address, remembered as test accounts are.
create function pg_temp.guest(name text, ip text default '198.51.100.7', body jsonb default '{}')
returns jsonb
language plpgsql
as $$
declare
    v_reply api.reply := api.auth_guest_create(null, jsonb_build_object('client_ip', ip), body);
begin
    insert into test.accounts (name, account) values (guest.name, v_reply.body);
    return v_reply.body;
end
$$;

select is((api.auth_guest_create(null, '{"client_ip": "198.51.100.7"}', '{}')).status, 201, 'a guest is made: 201');
select pg_temp.guest('gus', body => '{"display_name": "Gus", "time_zone": "Europe/Paris"}');
select is((select array_agg(k order by k) from jsonb_object_keys(test.account('gus')) k), array['expires_at', 'token', 'user'],
          'the answer is a sign-up''s: {user, token, expires_at}');
select is(test.account('gus') -> 'user' -> 'email', 'null'::jsonb, 'a guest has no email');
select is(test.account('gus') -> 'user' -> 'guest', 'true'::jsonb, 'the Profile says guest');
select is(test.account('gus') -> 'user' ->> 'display_name', 'Gus', 'the display name given is kept');
select ok((select u.password_hash is null and u.email is null and u.time_zone = 'Europe/Paris' from app.users u where u.id = test.uid('gus')),
          'stored without email or password, in its time zone');
select is((select count(*)::integer from app.user_items ui where ui.user_id = test.uid('gus')),
          (select count(*)::integer from app.user_items ui where ui.user_id = test.uid('ann')), 'a guest gets the starters');
select is((api.auth_guest_create(null, '{}', '{}')).body -> 'user' ->> 'display_name', 'Guest', 'no display name: "Guest"');
select is(test.error_of($$ select api.auth_guest_create(null, '{}', '{"display_name": "   "}') $$), 'PT400 invalid_display_name',
          'a display name is checked as at sign-up');
select is(test.error_of($$ select api.auth_guest_create(null, '{}', '{"email": "x@example.com"}') $$), 'PT400 invalid_field',
          'a guest takes no email');
select is(test.error_of(format($$ update app.users set email = 'gus@example.com' where id = %L $$, test.uid('gus'))), '23514',
          'the table refuses an email without a password (users_guest_or_account)');
select is(test.error_of(format($$ update app.users set password_hash = crypt('x', gen_salt('bf', 4)) where id = %L $$, test.uid('gus'))), '23514',
          'and a password without an email');

-- The address's bound: 20 an hour by default, counted per address bucket.
update app.guest_settings set max_guests_per_address = 2;
select is(test.answer_of($$ select api.auth_guest_create(null, '{"client_ip": "198.51.100.7"}', '{}') $$), 'PT429 too_many_attempts',
          'past max_guests_per_address from one address: 429 too_many_attempts');
select ok((api.auth_guest_create(null, '{"client_ip": "198.51.100.7"}', '{}')).retry_after between 1 and 3600, '... with Retry-After');
select is(test.answer_of($$ select api.auth_guest_create(null, '{"client_ip": "198.51.100.8"}', '{}') $$), 'ok', 'another address is not held');
select is((select count(*)::integer from app.users u where u.email is null and u.deleted_at is null and u.created_at = now()), 4, 'a refused guest writes nothing');
update app.guest_settings set max_guests_per_address = 20;

-- What waits for an upgrade.
select is(test.error_of($$ select api.friend_requests_create(test.token('gus'), '{}', '{"email": "ann@example.com"}') $$),
          'PT403 guest_not_allowed', 'a guest sends no friend request by email');
select is(test.error_of(format($$ select api.gifts_create(test.token('gus'), '{}', '{"to": "%s", "coins": 1}') $$, test.uid('ann'))),
          'PT403 guest_not_allowed', 'a guest sends no gift');
select is(test.error_of($$ select api.rooms_create(test.token('gus'), '{}', '{"planned_minutes": 25}') $$),
          'PT403 guest_not_allowed', 'a guest opens no room');
select is(test.error_of($$ select api.leaderboards_get(test.token('gus'), '{"period": "daily", "scope": "global"}', null) $$),
          'PT403 guest_not_allowed', 'a guest does not see the global board');
select is(test.error_of($$ select api.leaderboards_get(test.token('gus'), '{"period": "daily"}', null) $$), 'ok',
          'the friends board (the guest alone) is theirs');

select is(test.error_of($$ select api.me_password_update(test.token('gus'), '{}', '{"current_password": "x", "new_password": "correct horse"}') $$),
          'PT403 guest_not_allowed', 'a guest has no password to change: POST /me/upgrade sets the first');
select is(test.error_of($$ select api.me_email_update(test.token('gus'), '{}', '{"password": "x", "email": "gus@example.com"}') $$),
          'PT403 guest_not_allowed', '... nor an email to change');

-- The upgrade keeps the id and everything on it.
create temporary table before_upgrade on commit drop as
select u.balance, (select count(*) from app.user_items ui where ui.user_id = u.id) as items from app.users u where u.id = test.uid('gus');
select is((api.me_upgrade(test.token('gus'), '{"client_ip": "198.51.100.7"}',
                          '{"email": "Gus@Example.com", "password": "correct horse", "birth_year": 1990, "birth_month": 4}')).body -> 'user' ->> 'email',
          'Gus@Example.com', 'the guest upgrades: its email as typed');
select ok((select u.id = test.uid('gus') and u.password_hash = crypt('correct horse', u.password_hash) and u.birth_month = date '1990-04-01'
                  and u.balance = b.balance and (select count(*) from app.user_items ui where ui.user_id = u.id) = b.items
           from app.users u, before_upgrade b where u.id = test.uid('gus')),
          'same id, password hashed, birth month stored, balance and items kept');
select ok(exists (select from app.outgoing_mail m where m.user_id = test.uid('gus') and m.kind = 'email_verification'),
          'a code to verify the email is mailed, as at sign-up');
select is((api.me_upgrade(test.token('gus'), '{}', '{"email": "gus@example.com", "password": "correct horse"}')).body -> 'user' ->> 'id',
          test.uid('gus')::text, 'the same email again (a double submit) answers the same');
select is(test.error_of($$ select api.me_upgrade(test.token('gus'), '{}', '{"email": "other@example.com", "password": "correct horse"}') $$),
          'PT409 already_upgraded', 'another email on a full account: 409 already_upgraded');
select pg_temp.guest('gil');
select is(test.answer_of($$ select api.me_upgrade(test.token('gil'), '{"client_ip": "198.51.100.9"}', '{"email": "ANN@example.com", "password": "correct horse"}') $$),
          'PT409 email_taken', 'an email taken: 409 email_taken, as sign-up answers');
select is((select count(*)::integer from app.taken_email_answers a where a.client_ip = '198.51.100.9'), 1,
          '... counted against the address as sign-up''s are');
update app.auth_settings set max_taken_answers_per_address = 1;
select is(test.answer_of($$ select api.me_upgrade(test.token('gil'), '{"client_ip": "198.51.100.9"}', '{"email": "free@example.com", "password": "correct horse"}') $$),
          'PT429 too_many_attempts', 'past the address''s budget every email alike is 429, so nothing more is told');

select pg_temp.guest('gone');
select is(test.answer_of($$ select api.me_delete(test.token('gone'), '{}', '{}') $$), 'ok', 'a guest deletes itself with its token alone');

-- Idle guests are erased; a used one and a full account are not.
select pg_temp.guest('old');
select pg_temp.guest('busy');
update app.users set created_at = now() - interval '40 days' where id in (test.uid('old'), test.uid('busy'), test.uid('ann'));
update app.auth_tokens set last_used_at = now() - interval '40 days', created_at = now() - interval '40 days'
where user_id in (test.uid('old'), test.uid('busy'));
update app.auth_tokens set last_used_at = now() - interval '2 days' where user_id = test.uid('busy');
select is((select j.result from api.job_step('erase_idle_guests') j), 1, 'erase_idle_guests erases the one idle guest');
select ok((select u.deleted_at is not null and u.display_name = 'Deleted user' from app.users u where u.id = test.uid('old'))
          and (select u.deleted_at is null from app.users u where u.id = test.uid('busy')), '... as a deletion does, keeping the used one');

select * from finish();
rollback;
