-- The bio (PATCH /me, api.bio): optional text of at most 160 characters, NFC and trimmed, with
-- the character rules of a display name (app.bio_is_clean) and the name blocklist; shown in the
-- Profile and on a friend's island (GET /users/{id}), not in the friends list; null when unset,
-- cleared by null or "", blanked by DELETE /me.
begin;
select plan(27);
select test.new_user('bia');
select test.new_user('bib');
select test.new_user('bic');
select api.friend_requests_create(test.token('bia'), '{}', '{"email": "bib@example.com"}');
select api.friend_requests_create(test.token('bib'), '{}', '{"email": "bia@example.com"}');
insert into app.blocked_name_terms (term, note) values ('bad', 'a test term');

create function pg_temp.bio_of(name text) returns text language sql as $$
    select (api.me_get(test.token(name), '{}', '{}')).body ->> 'bio'
$$;
create function pg_temp.set_bio(bio jsonb) returns text language sql as $$
    select test.error_of(format($q$ select api.me_update(%L, '{}', %L) $q$, test.token('bia'), jsonb_build_object('bio', bio)))
$$;

select is((api.me_get(test.token('bia'), '{}', '{}')).body -> 'bio', 'null'::jsonb, 'a new account has no bio: null');
select is((select bio from app.users where id = test.uid('bia')), null, '... stored as null');

select is(pg_temp.set_bio(to_jsonb(U&'  Cafe\0301 mornings, slow focus.  '::text)), 'ok', 'a bio can be set');
select is(pg_temp.bio_of('bia'), U&'Caf\00E9 mornings, slow focus.', '... stored NFC and trimmed, and read back in GET /me');
select is((api.me_update(test.token('bia'), '{}', '{"display_name": "Bia"}')).body ->> 'bio', U&'Caf\00E9 mornings, slow focus.',
          'a PATCH without bio leaves it as it was');
select is((api.users_get(test.token('bib'), jsonb_build_object('id', test.uid('bia')), '{}')).body ->> 'bio',
          U&'Caf\00E9 mornings, slow focus.', 'a friend sees it on GET /users/{id}');
select is((select array_agg(k order by k) from jsonb_object_keys((api.users_get(test.token('bib'), jsonb_build_object('id', test.uid('bia')), '{}')).body) as k),
          array['avatar_version', 'befriended_at', 'bio', 'display_name', 'has_avatar', 'id', 'selected', 'today_minutes'],
          '... whose answer is a Friend and the bio (FriendProfile)');
select ok(not ((api.friends_list(test.token('bib'), '{}', '{}')).body -> 'friends' -> 0 ? 'bio'),
          'the friends list carries no bio');
select is(test.error_of(format($$ select api.users_get(%L, %L, '{}') $$, test.token('bic'), jsonb_build_object('id', test.uid('bia')))),
          'PT404 user_not_found', 'someone who is not a friend sees no bio (404, as for any island)');
select is((api.me_export_get(test.token('bia'), '{}', '{}')).body -> 'profile' ->> 'bio', U&'Caf\00E9 mornings, slow focus.',
          'GET /me/export carries it in the profile');

select is(pg_temp.set_bio(to_jsonb(repeat('x', 160))), 'ok', '160 characters are allowed');
select throws_ok(format($$ select api.me_update(%L, '{}', %L) $$, test.token('bia'), jsonb_build_object('bio', repeat('x', 161))),
                 'PT400', 'bio must be at most 160 characters, without line breaks, invisible, control or direction characters.',
                 '161 characters are refused with invalid_field naming bio');
select is(pg_temp.set_bio(to_jsonb(repeat('x', 161))), 'PT400 invalid_field', '... whose code is invalid_field');
select is(pg_temp.set_bio(to_jsonb(U&'Two\000Alines'::text)), 'PT400 invalid_field', 'a line break is refused');
select is(pg_temp.set_bio(to_jsonb(U&'Hello \202Eevil'::text)), 'PT400 invalid_field', 'a right-to-left override is refused');
select is(pg_temp.set_bio(to_jsonb(U&'Hi\200Bthere'::text)), 'PT400 invalid_field', 'a zero-width space is refused');
select is(pg_temp.set_bio(to_jsonb(U&'Za\0336\0337\0338lgo'::text)), 'PT400 invalid_field', 'a flood of combining marks is refused');
select is(pg_temp.set_bio('42'), 'PT400 invalid_field', 'a number is refused');
select is(pg_temp.set_bio(to_jsonb('I am B 4 D at this'::text)), 'PT400 inappropriate_bio', 'a blocked term is refused, folded as names are');
select is(pg_temp.set_bio(to_jsonb('Not from Focus 1sland, officially'::text)), 'PT400 inappropriate_bio', '... and a seeded one');
select is(test.error_of(format($$ select api.me_update(%L, '{}', '{"bio": "fine", "display_name": ""}') $$, test.token('bia'))),
          'PT400 invalid_display_name', 'a bad display name beside a good bio refuses both');
select is((select bio from app.users where id = test.uid('bia')), repeat('x', 160), 'refused patches left the bio as it was');
select is(test.error_of($$ update app.users set bio = '' where id = test.uid('bia') $$), '23514',
          'the table refuses an empty bio (users_bio_check: unset is null)');

select is(pg_temp.set_bio(to_jsonb('   '::text)), 'ok', 'a bio of nothing but spaces clears it');
select is((select bio from app.users where id = test.uid('bia')), null, '... to null');
select api.me_update(test.token('bia'), '{}', '{"bio": "Back again"}');
select is(pg_temp.set_bio('null'), 'ok', 'null clears it');
select is(pg_temp.bio_of('bia'), null, '... to null');

select * from finish();
rollback;
