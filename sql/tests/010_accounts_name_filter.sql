-- The name blocklist (app.blocked_name_terms): a DBA's term refuses every name containing it,
-- however it is spelled (case, spacing, punctuation, look-alike digits and letters), on
-- sign-up and on rename, with 400 inappropriate_display_name; the names around it stay free.
begin;
select plan(17);
select test.new_user('ann');
insert into app.blocked_name_terms (term, note) values ('bad', 'a test term'), ('!!', 'folds to nothing: ignored');

create function pg_temp.register(name text) returns text language sql as $$
    select test.error_of(format($q$ select api.auth_register(null, '{}', %L) $q$,
                                jsonb_build_object('email', md5(name) || '@filter.example', 'password', 'correct horse',
                                                   'display_name', name)))
$$;

select is(pg_temp.register('bad'), 'PT400 inappropriate_display_name', 'the term itself is refused');
select is(pg_temp.register('BaD'), 'PT400 inappropriate_display_name', '... in mixed case');
select is(pg_temp.register('B a D'), 'PT400 inappropriate_display_name', '... spaced out');
select is(pg_temp.register('b.a-d_'), 'PT400 inappropriate_display_name', '... with punctuation between the letters');
select is(pg_temp.register('b4d'), 'PT400 inappropriate_display_name', '... with a digit for a letter');
select is(pg_temp.register('B@D'), 'PT400 inappropriate_display_name', '... with a symbol for a letter');
select is(pg_temp.register('Baaaad boy'), 'PT400 inappropriate_display_name', '... with a letter repeated, inside a longer name');
select is(pg_temp.register(U&'\FF42\FF41\FF44'), 'PT400 inappropriate_display_name', '... in full-width letters');
select is(pg_temp.register('b' || U&'\0430' || 'd'), 'PT400 inappropriate_display_name', '... with a Cyrillic a');
select is(pg_temp.register('b' || U&'\00E1' || 'd'), 'PT400 inappropriate_display_name', '... with an accent');
select is(pg_temp.register('Bard'), 'ok', 'a name that is not the term is free');
select is(pg_temp.register('Offic1al Ann'), 'PT400 inappropriate_display_name', 'a seeded term (official) is refused');
select is(pg_temp.register('Focus 1sland fan'), 'PT400 inappropriate_display_name', '... and another (focus island)');

select is(test.error_of($$ select api.me_update(test.token('ann'), '{}', '{"display_name": "B  4  D"}') $$),
          'PT400 inappropriate_display_name', 'PATCH /me refuses it too');
select is((select u.display_name from app.users u where u.id = test.uid('ann')), 'Ann', '... and the name stays');
delete from app.blocked_name_terms where term = 'bad';
select is(test.error_of($$ select api.me_update(test.token('ann'), '{}', '{"display_name": "B a D"}') $$), 'ok',
          'a term a DBA deleted refuses nothing any more');
select is(api.name_skeleton(U&'  \FF22 4 \0430 -- D 0 1 7 '), 'badoit', 'api.name_skeleton folds forms, case, look-alikes, spacing');

select * from finish();
rollback;
