-- The age gate: the birth month at sign-up (and its refusals), app.record_birth_month (once),
-- what an account under the minimum age may not do, and the parent's consent by mail that
-- lifts it.
begin;
set constraints all immediate;
select plan(32);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('ann');

-- A child signs up: ten years old, whatever today is.
create temporary table kid on commit drop as
select (api.auth_register(null, '{}', jsonb_build_object(
    'email', 'kid@example.com', 'password', 'correct horse', 'display_name', 'Kid',
    'birth_year', extract(year from current_date)::integer - 10, 'birth_month', 1))).body as account;
insert into test.accounts (name, account) select 'kid', account from kid;
update app.users set email_verified_at = now(), created_at = now() - interval '1 year' where id = test.uid('kid');

select is((select u.birth_month from app.users u where u.id = test.uid('kid')),
          make_date(extract(year from current_date)::integer - 10, 1, 1), 'the birth month is stored as its first day');
select is(test.account('kid') -> 'user' -> 'age_restricted', 'true'::jsonb, 'the Profile says age_restricted');
select is((api.me_get(test.token('ann'), '{}', '{}')).body -> 'age_restricted', 'false'::jsonb,
          'an account without a birth month is not restricted (made before the question)');

select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "correct horse", "display_name": "B", "birth_year": 2000}') $$),
          'PT400 invalid_field', 'a birth year without a month is refused');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "correct horse", "display_name": "B", "birth_year": 2000, "birth_month": 13}') $$),
          'PT400 invalid_field', 'a month 13 is refused');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "correct horse", "display_name": "B", "birth_year": "2000", "birth_month": 1}') $$),
          'PT400 invalid_field', 'a year that is not a number is refused');
select is(test.error_of(format($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "correct horse", "display_name": "B", "birth_year": %s, "birth_month": 1}') $$,
                               extract(year from current_date)::integer + 1)),
          'PT400 invalid_field', 'a year to come is refused');
select is(test.error_of($$ select api.auth_register(null, '{}', '{"email": "b@example.com", "password": "correct horse", "display_name": "B", "birth_year": 1899, "birth_month": 1}') $$),
          'PT400 invalid_field', 'a year before 1900 is refused');
select ok(not exists (select from app.users u where u.email = 'b@example.com'), 'a refused sign-up writes nothing');

-- app.record_birth_month: the one writer, once.
select is(app.record_birth_month(test.uid('kid'), 1980, 5), make_date(extract(year from current_date)::integer - 10, 1, 1),
          'a second answer does not change the first (only consent lifts the gate)');
select is(app.record_birth_month(test.uid('ann'), null, null), null, 'no answer writes nothing');
select is(test.error_of($$ select app.record_birth_month(test.uid('ann'), 1980, 0) $$), '22023', 'a month 0 is 22023');
select is(app.record_birth_month(test.uid('ann'), 1980, 5), date '1980-05-01', 'an account without one records it');

-- The edge: counted from the end of the birth month.
select ok(app.age_restricted((date_trunc('month', current_date) - interval '13 years')::date, null),
          'born this month 13 years ago: still restricted (turns 13 within the month)');
select ok(not app.age_restricted((date_trunc('month', current_date) - interval '13 years 1 month')::date, null),
          'born the month before: 13, not restricted');
update app.age_settings set min_age = 16;
select ok(app.age_restricted((date_trunc('month', current_date) - interval '14 years')::date, null), 'min_age is a setting');
update app.age_settings set min_age = 13;

-- What waits for a parent's consent.
select is(test.error_of($$ select api.friend_requests_create(test.token('kid'), '{}', '{"email": "ann@example.com"}') $$),
          'PT403 parental_consent_required', 'a child sends no friend request by email');
select is(test.answer_of($$ select api.friend_requests_create(test.token('ann'), '{}', '{"email": "kid@example.com"}') $$),
          'PT404 user_not_found', 'nobody finds a child by email: the answer of an unknown one');
select test.session('kid', test.day_start(), 99);
select test.session('ann', test.day_start(), 10);
-- The board's rows as the route reads them, however many others focused today in this database.
create function pg_temp.on_board(name text) returns boolean language sql as $$
    select exists (select from api.board_top('daily', (test.day_start() at time zone 'UTC')::date, 1000000, test.uid('ann')) t
                   where t.user_id = test.uid(name))
$$;
select ok(not pg_temp.on_board('kid') and pg_temp.on_board('ann'), 'a child is not on the global board');

select is(api.console_user_json(test.uid('kid')) -> 'age_restricted', 'true'::jsonb, 'the moderation console shows a child as such');

-- The consent: a code mailed to the parent, given back.
select is(test.error_of($$ select api.me_parental_consent_create(test.token('ann'), '{}', '{"parent_email": "mum@example.com"}') $$),
          'PT409 parental_consent_not_needed', 'an adult needs no consent');
select is(test.error_of($$ select api.me_parental_consent_create(test.token('kid'), '{}', '{"parent_email": "KID@example.com"}') $$),
          'PT400 invalid_field', 'the parent''s address is not the child''s own');
select is((api.me_parental_consent_create(test.token('kid'), '{}', '{"parent_email": "mum@example.com"}')).body ->> 'consent', 'mailed',
          'a child asks: 202 {consent: mailed}');
select is(test.error_of($$ select api.parental_consent_confirm(null, '{}', '{"code": "00000000000000000000"}') $$ ), 'ok',
          'a wrong code is answered without raising');
select is(test.answer_of($$ select api.parental_consent_confirm(null, '{}', '{"code": "00000000000000000000"}') $$ ),
          'PT400 invalid_consent_code', '... 400 invalid_consent_code');
select is((api.parental_consent_confirm(null, '{}', jsonb_build_object('code', lower((select m.params ->> 'code' from app.outgoing_mail m
                                                                                       where m.kind = 'parental_consent' and m.recipient = 'mum@example.com'))))).body ->> 'consent',
          'recorded', 'the mailed code (any case) records the consent');
select ok(exists (select from app.outgoing_mail m where m.kind = 'parental_consent_recorded' and m.recipient = 'mum@example.com'),
          'the parent is told what was recorded (the "plus" of email plus)');
select is(test.answer_of($$ select api.friend_requests_create(test.token('kid'), '{}', '{"email": "ann@example.com"}') $$),
          'ok', 'after consent the child sends friend requests');
select ok(pg_temp.on_board('kid'), '... and is on the global board');

select is((select (api.me_export_get(test.token('kid'), '{}', '{}')).body -> 'age_gate' -> 'consents_asked' -> 0 ->> 'parent_email'),
          'mum@example.com', 'the export holds the age gate: the consents asked');
select api.erase_account(test.uid('kid'), null);
select ok((select u.birth_month is null and u.parental_consent_at is null from app.users u where u.id = test.uid('kid'))
          and not exists (select from app.parental_consents c where c.user_id = test.uid('kid')),
          'erasure forgets the birth month, the consent and the parent''s address');
select ok(not exists (select from app.outgoing_mail m where m.recipient = 'mum@example.com'), '... and the mails to the parent');

select * from finish();
rollback;
