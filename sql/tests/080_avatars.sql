-- Avatars: magic bytes decide the type, who may see them, and deleting one.
begin;
select plan(8);
select test.new_user(name) from unnest(array['amy', 'bob', 'cyd']) as name;

select is(test.error_of($$ select api.me_avatar_update(test.token('amy'), '{}', '\x89504e470d0a1a0a0000000d49484452'::bytea) $$),
          'ok', 'a PNG avatar is stored');
select is(test.error_of($$ select api.me_avatar_update(test.token('amy'), '{}', '\x47494638396101'::bytea) $$),
          'PT415 unsupported_image', 'a GIF is unsupported_image');
select is((api.users_avatar_get(test.token('amy'), jsonb_build_object('id', test.uid('amy')), '{}')).content_type, 'image/png',
          'the owner sees it as image/png');
select is(test.error_of($$ select api.users_avatar_get(test.token('bob'), jsonb_build_object('id', test.uid('amy')), '{}') $$),
          'PT404 avatar_not_found', 'a stranger cannot see it');
select api.friend_requests_create(test.token('amy'), '{}', '{"email": "bob@example.com"}');
select api.friend_requests_create(test.token('bob'), '{}', '{"email": "amy@example.com"}');
select is((api.users_avatar_get(test.token('bob'), jsonb_build_object('id', test.uid('amy')), '{}')).content_type, 'image/png',
          'a friend can see it');
select is(test.error_of($$ insert into app.avatars values (test.uid('cyd'), 'image/jpeg', '\x89504e47'::bytea) $$),
          '23514', 'the table refuses bytes that are not the stated type');

select is(test.error_of($$ select api.me_avatar_delete(test.token('amy'), '{}', '{}') $$), 'ok', 'the owner deletes it');
select is(test.error_of($$ select api.users_avatar_get(test.token('bob'), jsonb_build_object('id', test.uid('amy')), '{}') $$),
          'PT404 avatar_not_found', '... and then even a friend gets avatar_not_found');

select * from finish();
rollback;
