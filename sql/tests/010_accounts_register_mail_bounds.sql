-- The step-up's mail is bounded: at most 3 sign-up mails an hour to one email, taken or free
-- (then 429 alike, nothing sent), and at most max_signup_mails_per_address (1,000) an hour
-- caused from one address (then every sign-up without a code from there is 429: the last
-- resort); a sign-up with its code is never held by either bound.
begin;
select plan(11);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('held');
insert into app.taken_email_answers (client_ip) select '192.0.2.71' from generate_series(1, 20);
create function pg_temp.register(email text, address text default '192.0.2.71', code text default null) returns api.reply language sql as $$
    select api.auth_register(null, jsonb_build_object('client_ip', address),
                             jsonb_build_object('email', email, 'password', 'correct horse', 'display_name', 'Student')
                             || jsonb_strip_nulls(jsonb_build_object('code', code)))
$$;
create function pg_temp.mails(address text) returns integer language sql as $$
    select count(*)::integer from app.outgoing_mail where recipient = address and kind in ('signup_code', 'address_taken')
$$;

select is((select (max_reset_mails, reset_mail_window, max_signup_mails_per_address, taken_answer_window)::text from app.auth_settings),
          '(3,01:00:00,1000,01:00:00)', 'the bounds: 3 mails an hour per email, 1,000 an hour per address');

-- Per recipient: a taken and a free email alike.
select pg_temp.register(e) from unnest(array['held@example.com', 'new@example.com']) e, generate_series(1, 3);
select is(pg_temp.mails('held@example.com') || ' ' || pg_temp.mails('new@example.com'), '3 3',
          'three requests mail a taken email''s holder three notices and a free email three codes');
create temporary table fourth on commit drop as
select (pg_temp.register('held@example.com')) as taken, (pg_temp.register('new@example.com')) as free;
select is((select to_jsonb(taken) from fourth), (select to_jsonb(free) from fourth),
          'a fourth request within the hour gets the same answer for both');
select is((select (free).status || ' ' || (free).code from fourth), '429 too_many_attempts', '... 429 too_many_attempts');
select ok((select (free).retry_after between 1 and 3600 from fourth), '... with Retry-After');
select is(pg_temp.mails('held@example.com') || ' ' || pg_temp.mails('new@example.com'), '3 3', '... and mails nothing more');
select is((pg_temp.register('new@example.com', '198.51.100.40',
                            (select params ->> 'code' from app.outgoing_mail where recipient = 'new@example.com' and kind = 'signup_code'
                             order by id desc limit 1))).status, null,
          'the newest of the three codes still signs up: the bound holds the mail, not the sign-up');

-- Per address: the last resort (the ceiling lowered to 8 here, 6 mails already caused).
update app.auth_settings set max_signup_mails_per_address = 8;
select pg_temp.register('s' || n || '@example.com') from generate_series(1, 2) n;
select is((pg_temp.register('s3@example.com')).code, 'too_many_attempts',
          'past max_signup_mails_per_address mails from the address, every sign-up without a code from there is 429');
select is(pg_temp.mails('s3@example.com'), 0, '... and mails nothing');
select is((pg_temp.register('s1@example.com', '192.0.2.71',
                            (select params ->> 'code' from app.outgoing_mail where recipient = 's1@example.com' and kind = 'signup_code'))).status,
          null, '... while a sign-up with its code still works from there');
select is((pg_temp.register('s4@example.com', '192.0.2.72')).status, null, 'another address is not held by it');

select * from finish();
rollback;
