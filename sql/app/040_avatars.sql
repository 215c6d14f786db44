-- The avatar size limit, written once (used by 0009_avatar_limit.sql's check), and the stripping of
-- the metadata an uploaded image carries.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- The size an avatar may be, written once. app.avatar_max_bytes() is what
-- the CHECK on app.avatars holds (it was the literal 262144) and what api.me_avatar_update
-- answers 413 body_too_large from; the HTTP layer only keeps a memory ceiling above it (1 MiB,
-- Routes.largeBodyLimit). To change the limit: change it here and add a migration that re-adds
-- the constraint, so existing rows are checked against the new value.
create or replace function app.avatar_max_bytes()
returns integer
language sql immutable parallel safe
as $$ select 256 * 1024 $$;
comment on function app.avatar_max_bytes() is 'The largest avatar in bytes (256 KiB): the one place this limit is written.';

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
-- Done here on the bytes, like every rule of what is stored, not in the HTTP layer; in app,
-- so that 0018_names_and_token_ends.sql could clean the avatars already stored.
create or replace function app.image_without_metadata(image bytea)
returns bytea
language plpgsql immutable parallel safe
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
            v_size := 2 + get_byte(image_without_metadata.image, v_at + 2)::bigint * 256 + get_byte(image_without_metadata.image, v_at + 3);
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
comment on function app.image_without_metadata(bytea) is
    'An avatar''s bytes without metadata: JPEG APP1-APP13, APP15, COM (and APP0/APP14 other than JFIF/Adobe) '
    'before the first scan; PNG tEXt, zTXt, iTXt, eXIf, tIME and anything after IEND.';
