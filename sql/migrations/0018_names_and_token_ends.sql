-- 0018 names and token ends (2026-12-01).
--
-- Display names: what a name may hold is now a rule of the table, written once in
-- app.display_name_is_clean: NFC (one spelling per name, so "é" is not two names), trimmed,
-- 1 to 40 characters, and none of the characters that make a name lie about itself on a
-- board or a friend's list: control characters (C0, DEL, C1), bidi embeddings, overrides,
-- isolates and marks (a name that reverses the text after it), zero-width and invisible
-- characters (ZWSP, ZWNJ, word joiner, BOM, soft hyphen, Hangul fillers, line and paragraph
-- separators, tag characters), and floods of combining marks (three or more in a row: the
-- "Zalgo" text that paints over the rows around it). A zero-width joiner stays allowed between
-- two emoji, where it builds one emoji (a family, a rainbow flag). Names already stored are
-- cleaned first (normalised, such characters removed, floods cut to two marks); a name left
-- empty becomes 'Islander'. api.display_name_field (sql/api/010_accounts.sql) answers 400
-- before the table would refuse, and adds what a constraint cannot hold: reserved names and
-- the blocklist below.
--
-- The name blocklist: terms a DBA edits (insert, delete), matched against every new name and
-- rename after the same folding of both sides (api.name_skeleton: compatibility forms, case,
-- accents, look-alike digits and symbols, look-alike Cyrillic and Greek letters, spacing and
-- punctuation, repeated letters). Seeded with a few neutral terms that impersonate the app or
-- its operator; what is objectionable in which markets is the operator's list to write.
--
-- Token ends: when a token stops signing in (logout, revocation, password change or reset,
-- account deletion), its user's event streams and long-polls are rung on `focus_events` like
-- an event (`<user id>:token`): they ask api.events_list again, which answers 401, and the
-- stream ends (freeing its place under max_streams_per_user) or the long-poll answers 401.
-- Only the ending of a token rings: its hourly last_used_at touch does not. A token that
-- expires by time rings nothing; the server knows its expiry from api.events_stream_open.
--
-- Long-polls per user: max_polls_per_user waiting GET /events long-polls per user and server
-- process, like streams (429 too_many_polls past it).
--
-- Avatars without metadata: app.image_without_metadata is what api.me_avatar_update stores;
-- avatars stored before are cleaned here (their version moves, so friends fetch them again).

-- Whether a display name is one the table keeps (see above).
create function app.display_name_is_clean(name text)
returns boolean
language sql immutable parallel safe
as $$
    select display_name_is_clean.name is nfc normalized
       and display_name_is_clean.name = btrim(display_name_is_clean.name)
       and length(display_name_is_clean.name) between 1 and 40
       and display_name_is_clean.name !~ ('[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180e'
                                          || '\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0'
                                          || '\ufff9-\ufffb\U000e0000-\U000e007f]')
       and display_name_is_clean.name !~ ('(?<![\u2600-\u27bf\ufe0f\U0001f000-\U0001faff])\u200d'
                                          || '|\u200d(?![\u2600-\u27bf\U0001f000-\U0001faff])')
       and display_name_is_clean.name !~ '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]{3}'
$$;
comment on function app.display_name_is_clean(text) is
    'What app.users.display_name may hold: NFC, trimmed, 1 to 40 characters, no control, bidi, '
    'zero-width or invisible characters (a ZWJ only between emoji), no run of 3 combining marks.';

-- Names stored before this rule: cleaned the same way a person would have had to.
update app.users u
set display_name = coalesce(nullif(left(btrim(regexp_replace(regexp_replace(regexp_replace(
        normalize(u.display_name, nfc),
        '[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e'
        || '\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]', '', 'g'),
        '([\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]{2})[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+',
        '\1', 'g'),
        '\s+', ' ', 'g')), 40), ''), 'Islander')
where not app.display_name_is_clean(u.display_name);

alter table app.users drop constraint users_display_name_check;
alter table app.users add constraint users_display_name_check check (app.display_name_is_clean(display_name));

create table app.blocked_name_terms (
    term        text primary key check (length(btrim(term)) between 1 and 100),
    note        text check (length(note) <= 200),
    created_at  timestamptz not null default now()
);
comment on table app.blocked_name_terms is
    'Terms no display name may contain (register, rename: 400 inappropriate_display_name), edited by '
    'DBAs. Both sides are folded by api.name_skeleton before matching (case, accents, 0/o, 1/l/i, 3/e, '
    '4/a, 5/s, 7/t, @/a, $/s, look-alike letters, spacing, punctuation, repeated letters), so a term '
    'is written once, plainly. A term is matched inside names: a short one refuses many names.';
insert into app.blocked_name_terms (term, note) values
    ('focus island', 'impersonates the app'),
    ('official', 'impersonates the operator'),
    ('customer support', 'impersonates the operator');

alter table app.event_settings
    add column max_polls_per_user integer not null default 5 check (max_polls_per_user between 1 and 100);
comment on table app.event_settings is
    'retention: how long events are kept; max_streams_per_user: open GET /events streams per user '
    '(the server refuses more with 429 too_many_streams); max_polls_per_user: waiting GET /events '
    'long-polls per user (429 too_many_polls). pruned_through: the highest id app.prune_events deleted; '
    'a cursor below it may have missed events and is answered with a resync.';

-- Rings a user's live clients when one of their tokens stops signing in (see above).
create function app.auth_tokens_notify_end()
returns trigger
language plpgsql
as $$
begin
    perform pg_notify('focus_events', old.user_id::text || ':token');
    return null;
end
$$;

create trigger auth_tokens_end_deleted
after delete on app.auth_tokens
for each row execute function app.auth_tokens_notify_end();

create trigger auth_tokens_end_revoked
after update of revoked_at, expires_at on app.auth_tokens
for each row
when ((old.revoked_at is null and new.revoked_at is not null) or new.expires_at < old.expires_at)
execute function app.auth_tokens_notify_end();

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
-- so that this migration cleans the avatars already stored.
create function app.image_without_metadata(image bytea)
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
comment on function app.image_without_metadata(bytea) is
    'An avatar''s bytes without metadata: JPEG APP1-APP13, APP15, COM (and APP0/APP14 other than JFIF/Adobe) '
    'before the first scan; PNG tEXt, zTXt, iTXt, eXIf, tIME and anything after IEND.';

update app.avatars a
set data = app.image_without_metadata(a.data), updated_at = now()
where a.data <> app.image_without_metadata(a.data);
