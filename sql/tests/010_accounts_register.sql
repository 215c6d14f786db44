-- Registration: validation codes, case-insensitive unique email, bcrypt, token digests.
begin;
select plan(14);
update app.auth_settings set bcrypt_cost = 4;

create temporary table account on commit drop as
select api.auth_register(null, '{}', '{"email": "Ada@PgTap.example", "password": "correct horse", "display_name": " Ada "}') as reply;

select is((select (reply).status from account), null, 'register answers with the route''s status (201)');
select is((select (reply).body -> 'user' ->> 'email' from account), 'Ada@PgTap.example', 'email kept as typed');
select is((select (reply).body -> 'user' ->> 'display_name' from account), 'Ada', 'display name trimmed');
select is((select (reply).body -> 'user' -> 'settings' -> 'show_tip_on_timer' from account), 'true'::jsonb,
          'show_tip_on_timer is on for a new user');
select ok((select u.password_hash = crypt('correct horse', u.password_hash) and u.password_hash like '$2a$04$%'
           from app.users u where u.email = 'ada@pgtap.example'), 'the password is stored as a bcrypt hash');
select ok(exists (select from app.auth_tokens t, account a
                  where t.digest = sha256(convert_to((a.reply).body ->> 'token', 'UTF8'))),
          'the token is stored only as its SHA-256 digest');
select ok((select ((reply).body ->> 'expires_at')::timestamptz between now() + interval '29 days 23 hours'
                                                               and now() + interval '30 days 1 hour' from account),
          'the token expires in 30 days');

select is(test.answer_of($$ select api.auth_register(null, '{}', '{"email": "ADA@pgtap.EXAMPLE", "password": "another one", "display_name": "Ada 2"}') $$),
          'PT409 email_taken', 'the same email in other letter case is taken');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "not-an-email", "password": "correct horse", "display_name": "X"}') $$),
          'PT400 invalid_email', 'a malformed email is refused');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "short", "display_name": "X"}') $$),
          'PT400 weak_password', 'a password under 8 characters is refused');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "correct horse", "display_name": "   "}') $$),
          'PT400 invalid_display_name', 'a blank display name is refused');
select is(test.error_of(format($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "correct horse", "display_name": "%s"}') $$, repeat('x', 41))),
          'PT400 invalid_display_name', 'a display name over 40 characters is refused');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": 12345678, "display_name": "B"}') $$),
          'PT400 invalid_field', 'a password that is not a string is refused');
select is(test.error_of($$ insert into app.users (email, password_hash, display_name) values ('c@example.com', 'plain', 'C') $$),
          '23514', 'the table itself refuses a password that is not a bcrypt hash');

select * from finish();
rollback;
