-- api avatars: raw PNG or JPEG bytes in, the image out to its owner and their friends.

-- What a binary answer is: the route sends `data` with `content_type`.
create type api.file_reply as (
    status        integer,
    content_type  text,
    data          bytea,
    etag          text,
    code          text,
    message       text
);

-- An image body arrives as hex text (libpq text parameters cannot hold NUL bytes).
create function api.parse_image(body text)
returns bytea
language sql volatile security definer set search_path = public, pg_temp
as $$ select decode(parse_image.body, 'hex') $$;
grant execute on function api.parse_image(text) to focus_api;

-- PUT /me/avatar: the type comes from the image's first bytes, not from the client's word; the
-- image is stored without its metadata (app.image_without_metadata), at most
-- app.avatar_max_bytes() once stripped.
create function api.me_avatar_update(token text, params jsonb, body bytea)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_avatar_update.token);
    v_type text := case when substring(me_avatar_update.body from 1 for 8) = '\x89504e470d0a1a0a'::bytea then 'image/png'
                        when substring(me_avatar_update.body from 1 for 3) = '\xffd8ff'::bytea then 'image/jpeg' end;
    v_image bytea;
begin
    if v_type is null or length(me_avatar_update.body) < 4 then
        perform api.fail(415, 'unsupported_image', 'Send a PNG or JPEG image.');
    end if;
    v_image := app.image_without_metadata(me_avatar_update.body);
    if length(v_image) > app.avatar_max_bytes() then
        perform api.fail(413, 'body_too_large', format('An avatar is at most %s KiB.', app.avatar_max_bytes() / 1024));
    end if;
    insert into app.avatars (user_id, content_type, data) values (v_user_id, v_type, v_image)
    on conflict (user_id) do update set content_type = excluded.content_type, data = excluded.data, updated_at = now();
    return api.ok(null);
end
$$;
grant execute on function api.me_avatar_update(text, jsonb, bytea) to focus_api;
comment on function api.me_avatar_update(text, jsonb, bytea) is
    'PUT /me/avatar: PNG or JPEG by magic bytes (415 unsupported_image), stored without metadata '
    '(app.image_without_metadata), at most app.avatar_max_bytes() (413 body_too_large).';
insert into api.endpoints (method, path, function, status, body, body_limit, errors)
values ('PUT', '/me/avatar', 'api.me_avatar_update', 204, 'image', 1024 * 1024,
        '{account_suspended, unsupported_image}');

-- DELETE /me/avatar
create function api.me_avatar_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    delete from app.avatars a where a.user_id = api.authenticate(me_avatar_delete.token);
    return api.ok(null);
end
$$;
grant execute on function api.me_avatar_delete(text, jsonb, jsonb) to focus_api;
comment on function api.me_avatar_delete(text, jsonb, jsonb) is 'DELETE /me/avatar: removes the avatar (204 also when there was none).';
insert into api.endpoints (method, path, function, status, errors)
values ('DELETE', '/me/avatar', 'api.me_avatar_delete', 204, '{account_suspended, invalid_field}');

-- GET /users/{id}/avatar: yours or a friend's; anything else (a friend while suspended too, as
-- an ex-friend: docs/moderation.md; an account under the age gate to anyone but itself,
-- docs/guests.md) is 404 like a missing avatar.
create function api.users_avatar_get(token text, params jsonb, body jsonb)
returns api.file_reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(users_avatar_get.token);
    v_other uuid := api.uuid_field(users_avatar_get.params, 'id');
    v_avatar app.avatars;
begin
    select a.* into v_avatar from app.avatars a
    where a.user_id = v_other
      and (v_other = v_user_id
           or ((api.pair(v_user_id, v_other)).status = 'accepted'
               and not exists (select from app.suspensions s where s.user_id = v_other and s.until > now())
               and not app.user_age_restricted(v_other)));
    if v_avatar.user_id is null then
        perform api.fail(404, 'avatar_not_found', 'There is no avatar for you to see there.');
    end if;
    return row(null, v_avatar.content_type, v_avatar.data, md5(v_avatar.data), null, null)::api.file_reply;
end
$$;
grant execute on function api.users_avatar_get(text, jsonb, jsonb) to focus_api;
comment on function api.users_avatar_get(text, jsonb, jsonb) is 'GET /users/{id}/avatar: the image for its owner and their friends, with an ETag.';
insert into api.endpoints (method, path, function, response, reads, errors)
values ('GET', '/users/{id}/avatar', 'api.users_avatar_get', 'file', 'replica',
        '{account_suspended, avatar_not_found, invalid_field}');
