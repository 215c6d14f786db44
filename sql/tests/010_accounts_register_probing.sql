-- Sign-up cannot enumerate accounts, and one prober cannot stop a whole school behind one
-- address: after 20 answers 409 email_taken an hour, an address gets 202 for taken and free
-- emails alike (a code mailed to a free email, a notice to a taken one's holder), and everyone
-- there signs up with the code from their mail.
begin;
select plan(22);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('taken');
create function pg_temp.register(email text, address text, code text default null) returns api.reply language sql as $$
    select api.auth_register(null, jsonb_build_object('client_ip', address),
                             jsonb_build_object('email', email, 'password', 'correct horse', 'display_name', 'Probe')
                             || jsonb_strip_nulls(jsonb_build_object('code', code)))
$$;
-- Rows written by this transaction so far, by table (pg_stat_xact_user_tables; a time partition,
-- <table>_part_<day>, counts for its table).
create function pg_temp.writes() returns jsonb language sql as $$
    select coalesce(jsonb_object_agg(w.relname, w.n), '{}')
    from (select regexp_replace(relname, '_part_[a-z0-9]+$', '') as relname, sum(n_tup_ins + n_tup_upd + n_tup_del) as n
          from pg_stat_xact_user_tables where schemaname = 'app'
          group by 1 having sum(n_tup_ins + n_tup_upd + n_tup_del) > 0) w
$$;
-- What one statement wrote, by table: the difference of two pg_temp.writes().
create function pg_temp.delta(before jsonb, after jsonb) returns jsonb language sql as $$
    select coalesce(jsonb_object_agg(a.key, a.value::integer - coalesce((before ->> a.key)::integer, 0))
                    filter (where a.value::integer <> coalesce((before ->> a.key)::integer, 0)), '{}')
    from jsonb_each_text(after) a
$$;

-- The prober, at a school's one address, tests taken emails.
select is((pg_temp.register('taken@example.com', '192.0.2.50')).code, 'email_taken', 'under the budget a taken email is 409 email_taken');
select pg_temp.register('taken@example.com', '192.0.2.50') from generate_series(1, 19);
select is((select count(*)::integer from app.taken_email_answers where client_ip = '192.0.2.50'), 20, '... 20 such answers counted for the address');

-- Past the budget: one answer for a taken and a free email.
create temporary table w0 on commit drop as select pg_temp.writes() as w;
create temporary table taken_answer on commit drop as select pg_temp.register('taken@example.com', '192.0.2.50') as r;
create temporary table w1 on commit drop as select pg_temp.writes() as w;
create temporary table free_answer on commit drop as select pg_temp.register('fresh@example.com', '192.0.2.50') as r;
create temporary table w2 on commit drop as select pg_temp.writes() as w;
select is((select to_jsonb(r) from taken_answer), (select to_jsonb(r) from free_answer),
          'past 20 answers 409, a taken and a free email get exactly the same answer (status, body, headers)');
select is((select (r).status from free_answer), 202, '... 202');
select is((select (r).body from free_answer), '{"verification": "mailed", "code_expires_in": 900}'::jsonb,
          '... saying a code was mailed and how long it lives');
select is((select (r).code || (r).retry_after::text from free_answer), null, '... no problem, no Retry-After');
select is(pg_temp.delta((select w from w0), (select w from w1)), pg_temp.delta((select w from w1), (select w from w2)),
          '... after the same writes: one sign-up code row and one mail each');
select is(pg_temp.delta((select w from w0), (select w from w1)), '{"signup_codes": 1, "outgoing_mail": 1}'::jsonb,
          '... and nothing else (no account, no 409 counted)');
select is((select kind from app.outgoing_mail where recipient = 'taken@example.com' order by id desc limit 1), 'address_taken',
          'the taken address''s holder is mailed a notice, without a code');
select ok(test.signup_code('fresh@example.com') ~ '^\d{8}$', 'the free address is mailed an 8-digit code');
select is((select count(*)::integer from app.signup_codes where digest = sha256(convert_to(test.signup_code('fresh@example.com'), 'UTF8'))),
          1, '... stored only as its SHA-256 digest');
select is((select count(*)::integer from app.users where email = 'fresh@example.com'), 0, '... and no account is made yet');

-- Everyone else at the school signs up by reading their mail.
select pg_temp.register('student' || n || '@example.com', '192.0.2.50') from generate_series(1, 3) n;
create temporary table signed_up on commit drop as
select n, pg_temp.register('student' || n || '@example.com', '192.0.2.50', test.signup_code('student' || n || '@example.com')) as r
from generate_series(1, 3) n;
select is((select array_agg(coalesce((r).status, 201) order by n) from signed_up), array[201, 201, 201],
          'three students at the same address sign up with the code from their mail (the route''s 201)');
select ok((select bool_and((r).body ? 'token' and (r).body -> 'user' ->> 'email_verified' = 'true') from signed_up),
          '... each with a token, the email verified by the code');
select is((select count(*)::integer from app.outgoing_mail where recipient like 'student%' and kind = 'email_verification'), 0,
          '... and no second mail to verify it');
select is((pg_temp.register('fresh@example.com', '192.0.2.50', test.signup_code('fresh@example.com'))).status, null,
          'the free email of the prober''s test signs up with its code too');

-- The prober learns nothing more, and other addresses are untouched.
select is((pg_temp.register('student1@example.com', '192.0.2.50')).status || ' ' || (pg_temp.register('nobody@example.com', '192.0.2.50')).status,
          '202 202', 'the prober still gets 202 for an email just taken and for a free one');
select is((select count(*)::integer from app.taken_email_answers where client_ip = '192.0.2.50'), 20, '... and no further 409 is counted');
select is((pg_temp.register('taken@example.com', '192.0.2.51')).code, 'email_taken', 'another address still gets 409 under its own budget');
select is((pg_temp.register('elsewhere@example.com', '192.0.2.51')).status, null, '... and signs up at once');
select pg_temp.register('taken@example.com', '2001:db8:7::' || n) from generate_series(1, 20) n;
select is((pg_temp.register('other@example.com', '2001:db8:7::ffff')).status, 202, 'an IPv6 /64 counts as one address');
select is((pg_temp.register('other2@example.com', '2001:db8:8::1')).status, null, '... and the next /64 is another');

select * from finish();
rollback;
