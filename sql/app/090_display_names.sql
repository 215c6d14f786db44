-- What a display name and a bio may be, as the table's CHECKs hold them (users_display_name_check,
-- bound in 0018_names_and_token_ends.sql; users_bio_check, in 0019_bio.sql). The rules a person
-- meets first (the reserved names, the blocklist) are api.display_name's and api.bio's, in
-- sql/api/010_accounts.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.
-- The functions are IMMUTABLE and read by CHECKs: a stricter body changes no stored row, so such
-- a change comes with a migration that cleans the rows and validates the constraint again.

-- Whether a short text a person writes for others (a display name, a bio) reads as what it
-- shows: NFC, trimmed, no control, bidi, zero-width or invisible characters (a ZWJ only between
-- emoji), no run of 3 combining marks. No length: each column states its own.
create or replace function app.shown_text_is_clean(value text)
returns boolean
language sql immutable parallel safe
as $$
    select shown_text_is_clean.value is nfc normalized
       and shown_text_is_clean.value = btrim(shown_text_is_clean.value)
       and shown_text_is_clean.value !~ ('[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180e'
                                         || '\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0'
                                         || '\ufff9-\ufffb\U000e0000-\U000e007f]')
       and shown_text_is_clean.value !~ ('(?<![\u2600-\u27bf\ufe0f\U0001f000-\U0001faff])\u200d'
                                         || '|\u200d(?![\u2600-\u27bf\U0001f000-\U0001faff])')
       and shown_text_is_clean.value !~ '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]{3}'
$$;
comment on function app.shown_text_is_clean(text) is
    'The character rules of text shown to others (display names, bios): NFC, trimmed, no control, bidi, '
    'zero-width or invisible characters (a ZWJ only between emoji), no run of 3 combining marks.';

-- Whether a display name is one the table keeps (see above).
create or replace function app.display_name_is_clean(name text)
returns boolean
language sql immutable parallel safe
as $$
    select app.shown_text_is_clean(display_name_is_clean.name)
       and length(display_name_is_clean.name) between 1 and 40
$$;
comment on function app.display_name_is_clean(text) is
    'What app.users.display_name may hold: NFC, trimmed, 1 to 40 characters, no control, bidi, '
    'zero-width or invisible characters (a ZWJ only between emoji), no run of 3 combining marks.';

-- Whether a bio is one the table keeps (users_bio_check, bound in 0019_bio.sql): the character
-- rules of a display name, 1 to 160 characters (an unset bio is null, never empty).
create or replace function app.bio_is_clean(bio text)
returns boolean
language sql immutable parallel safe
as $$
    select app.shown_text_is_clean(bio_is_clean.bio)
       and length(bio_is_clean.bio) between 1 and 160
$$;
comment on function app.bio_is_clean(text) is
    'What app.users.bio may hold when set: the character rules of app.shown_text_is_clean, 1 to 160 characters.';
