-- Display names: one spelling (NFC), no character that hides or reverses text, no flood of
-- combining marks, no reserved name; the same check on sign-up and rename, and the table's own rule.
begin;
select plan(22);
select test.new_user('ann');

create function pg_temp.register(name text) returns text language sql as $$
    select test.error_of(format($q$ select api.auth_register(null, '{}', %L) $q$,
                                jsonb_build_object('email', md5(name) || '@names.example', 'password', 'correct horse',
                                                   'display_name', name)))
$$;
create function pg_temp.rename(name text) returns text language sql as $$
    select test.error_of(format($q$ select api.me_update(%L, '{}', %L) $q$,
                                test.token('ann'), jsonb_build_object('display_name', name)))
$$;

select is(((api.auth_register(null, '{}', jsonb_build_object('email', 'nfd@names.example', 'password', 'correct horse',
                                                             'display_name', ' Zoe' || U&'\0308' || ' '))).body -> 'user' ->> 'display_name'),
          U&'Zo\00EB', 'a decomposed name is stored composed (NFC), trimmed');
select is(pg_temp.register('Ann' || U&'\202E' || 'nimda'), 'PT400 invalid_display_name', 'a right-to-left override is refused');
select is(pg_temp.register('Ann' || U&'\2067' || 'x' || U&'\2069'), 'PT400 invalid_display_name', 'a bidi isolate is refused');
select is(pg_temp.register('Ann' || U&'\200F'), 'PT400 invalid_display_name', 'a right-to-left mark is refused');
select is(pg_temp.register('An' || U&'\200B' || 'n'), 'PT400 invalid_display_name', 'a zero-width space is refused');
select is(pg_temp.register('An' || U&'\FEFF' || 'n'), 'PT400 invalid_display_name', 'a BOM is refused');
select is(pg_temp.register('A' || U&'\200D' || 'nn'), 'PT400 invalid_display_name', 'a zero-width joiner between letters is refused');
select is(pg_temp.register('Fam ' || U&'\+01F468\200D\+01F469\200D\+01F467'), 'ok', '... but one joining emoji (a family) is a name');
select is(pg_temp.register('An' || U&'\0085' || 'n'), 'PT400 invalid_display_name', 'a C1 control character is refused');
select is(pg_temp.register('Z' || U&'\0336\0337\0338' || 'algo'), 'PT400 invalid_display_name', 'three combining marks in a row are refused');
select is(pg_temp.register(U&'Vi\1EC7t ' || 'a' || U&'\0323\0302'), 'ok', '... two are a name (Vietnamese)');
select is(pg_temp.register('Deleted user'), 'PT400 invalid_display_name', 'the tombstone name of deleted accounts is reserved');
select is(pg_temp.register('deleted   USER'), 'PT400 invalid_display_name', '... in any case and spacing');
select is(pg_temp.register('D3let3d Us3r'), 'PT400 invalid_display_name', '... and with look-alike digits');
select is(pg_temp.register('Admin'), 'PT400 invalid_display_name', 'admin is reserved');
select is(pg_temp.register('M0derator'), 'PT400 invalid_display_name', 'moderator is reserved');
select is(pg_temp.register('Focus Island'), 'PT400 invalid_display_name', 'Focus Island is reserved');
select is(pg_temp.register('Admiral Ann'), 'ok', 'a name that only begins like a reserved one is a name');

select is(pg_temp.rename('Deleted user'), 'PT400 invalid_display_name', 'PATCH /me refuses a reserved name too');
select is(pg_temp.rename('x' || U&'\202E'), 'PT400 invalid_display_name', '... and a bidi override');
select is((select u.display_name from app.users u where u.id = test.uid('ann')), 'Ann', '... and the name stays');
select is(test.error_of($$ update app.users set display_name = 'Zoe' || U&'\0308' where id = test.uid('ann') $$),
          '23514', 'the table itself keeps names NFC and clean');

select * from finish();
rollback;
