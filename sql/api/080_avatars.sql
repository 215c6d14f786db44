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

-- An image as it is stored: the same picture without what the camera or editor wrote about it
-- (2026-12-01). A phone's JPEG carries EXIF (GPS position, device, time), XMP and comments
-- that a friend downloading the avatar would read.
-- Guarantees, for a JPEG (by its first bytes): the segments before the first scan are copied
-- except APP1 to APP13, APP15 and COM, APP0 other than JFIF and APP14 other than Adobe (the
-- two a decoder reads: pixel density, colour transform); from the first scan (SOS) on, the
-- bytes are copied as they are. For a PNG: every chunk is copied except tEXt, zTXt, iTXt
-- (text), eXIf (EXIF) and tIME (last change), up to IEND; what follows IEND is dropped.
-- Where the bytes stop making segments or chunks (a length past the end), the rest is copied
-- unchanged: no decoder reads an image there either. Anything else is returned unchanged.
-- Done here on the bytes, like every rule of what is stored, not in the HTTP layer.
create function api.image_without_metadata(image bytea)
returns bytea
language plpgsql immutable
as $$
declare
    v_length integer := length(image_without_metadata.image);
    v_out bytea;
    v_at integer;  -- 0-based offset of the next segment or chunk
    v_marker integer;
    v_size bigint;
    v_type bytea;
begin
    if substring(image_without_metadata.image from 1 for 3) = '\xffd8ff'::bytea then
        v_out := substring(image_without_metadata.image from 1 for 2);
        v_at := 2;
        loop
            if v_at + 2 > v_length or get_byte(image_without_metadata.image, v_at) <> 255 then
                return v_out || substring(image_without_metadata.image from v_at + 1);
            end if;
            v_marker := get_byte(image_without_metadata.image, v_at + 1);
            if v_marker = 255 then  -- a fill byte before a marker
                v_at := v_at + 1;
                continue;
            end if;
            if v_marker in (1, 216, 217) or v_marker between 208 and 215 or v_marker = 218 then
                -- TEM, SOI, EOI, RSTn stand alone; SOS starts the scans, copied to the end.
                if v_marker in (217, 218) then
                    return v_out || substring(image_without_metadata.image from v_at + 1);
                end if;
                v_out := v_out || substring(image_without_metadata.image from v_at + 1 for 2);
                v_at := v_at + 2;
                continue;
            end if;
            if v_at + 4 > v_length then
                return v_out || substring(image_without_metadata.image from v_at + 1);
            end if;
            v_size := 2 + get_byte(image_without_metadata.image, v_at + 2) * 256 + get_byte(image_without_metadata.image, v_at + 3);
            if v_size < 4 or v_at + v_size > v_length then
                return v_out || substring(image_without_metadata.image from v_at + 1);
            end if;
            if not (v_marker between 225 and 237 or v_marker in (239, 254)
                    or (v_marker = 224 and substring(image_without_metadata.image from v_at + 5 for 5) <> '\x4a46494600'::bytea)
                    or (v_marker = 238 and substring(image_without_metadata.image from v_at + 5 for 5) <> '\x41646f6265'::bytea)) then
                v_out := v_out || substring(image_without_metadata.image from v_at + 1 for v_size::integer);
            end if;
            v_at := v_at + v_size::integer;
        end loop;
    end if;
    if substring(image_without_metadata.image from 1 for 8) = '\x89504e470d0a1a0a'::bytea then
        v_out := substring(image_without_metadata.image from 1 for 8);
        v_at := 8;
        while v_at < v_length loop
            if v_at + 12 > v_length then
                return v_out || substring(image_without_metadata.image from v_at + 1);
            end if;
            v_size := 12 + ((get_byte(image_without_metadata.image, v_at)::bigint * 256
                             + get_byte(image_without_metadata.image, v_at + 1)) * 256
                            + get_byte(image_without_metadata.image, v_at + 2)) * 256
                          + get_byte(image_without_metadata.image, v_at + 3);
            if v_at + v_size > v_length then
                return v_out || substring(image_without_metadata.image from v_at + 1);
            end if;
            v_type := substring(image_without_metadata.image from v_at + 5 for 4);
            if v_type not in ('\x74455874'::bytea, '\x7a545874'::bytea, '\x69545874'::bytea,
                              '\x65584966'::bytea, '\x74494d45'::bytea) then  -- tEXt zTXt iTXt eXIf tIME
                v_out := v_out || substring(image_without_metadata.image from v_at + 1 for v_size::integer);
            end if;
            exit when v_type = '\x49454e44'::bytea;  -- IEND
            v_at := v_at + v_size::integer;
        end loop;
        return v_out;
    end if;
    return image_without_metadata.image;
end
$$;

-- PUT /me/avatar: the type comes from the image's first bytes, not from the client's word; the
-- image is stored without its metadata (api.image_without_metadata), at most
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
    v_image := api.image_without_metadata(me_avatar_update.body);
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
    '(api.image_without_metadata), at most app.avatar_max_bytes() (413 body_too_large).';

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

-- GET /users/{id}/avatar: yours or a friend's; anything else is 404 like a missing avatar.
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
      and (v_other = v_user_id or (api.pair(v_user_id, v_other)).status = 'accepted');
    if v_avatar.user_id is null then
        perform api.fail(404, 'avatar_not_found', 'There is no avatar for you to see there.');
    end if;
    return row(null, v_avatar.content_type, v_avatar.data, md5(v_avatar.data), null, null)::api.file_reply;
end
$$;
grant execute on function api.users_avatar_get(text, jsonb, jsonb) to focus_api;
comment on function api.users_avatar_get(text, jsonb, jsonb) is 'GET /users/{id}/avatar: the image for its owner and their friends, with an ETag.';
