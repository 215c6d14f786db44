-- Bad input is the client's fault, whatever its shape: JSON nested deeper than the parser's
-- stack is 400 invalid_json (not the 54001 "stack depth limit exceeded" it raises), and every
-- text field has a length limit checked before anything is written.
begin;
select plan(7);

select is(test.error_of(format($$ select api.parse_body(%L) $$, repeat('[', 30000) || repeat(']', 30000))),
          'PT400 invalid_json', 'an array nested 30,000 deep is 400 invalid_json');
select is(test.error_of(format($$ select api.parse_body(%L) $$, repeat('{"a":', 30000) || '1' || repeat('}', 30000))),
          'PT400 invalid_json', 'an object nested 30,000 deep is 400 invalid_json');
select is(test.error_of($$ select api.text_field(jsonb_build_object('note', repeat('x', 1001)), 'note') $$),
          'PT400 invalid_field', 'a text field over 1,000 characters is refused');
select is(api.text_field(jsonb_build_object('note', repeat('é', 1000)), 'note'), repeat('é', 1000),
          'a text field of exactly 1,000 characters is read');

select is(test.error_of(format($$ select api.auth_login(null, '{}', jsonb_build_object('email', %L, 'password', 'wrong horse')) $$,
                               repeat('a', 8192) || '@example.com')),
          'PT400 invalid_field', 'an 8 KB email on login is 400 invalid_field');
select is((select count(*)::integer from app.login_failures where length(email) > 254), 0,
          '... and no failed attempt was written for it');
select is(test.error_of(format($$ select api.auth_login(null, '{}', jsonb_build_object('email', 'a@example.com', 'password', %L)) $$,
                               repeat('p', 73))),
          'PT400 invalid_field', 'a password over 72 characters on login is 400 invalid_field');

select * from finish();
rollback;
