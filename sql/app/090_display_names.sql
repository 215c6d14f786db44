-- What a display name may be, as the table's CHECK holds it (users_display_name_check, bound in
-- 0018_names_and_token_ends.sql). The rules a person meets first (the reserved names, the
-- blocklist) are api.display_name's, in sql/api/010_accounts.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.
-- The function is IMMUTABLE and read by a CHECK: a stricter body changes no stored row, so such
-- a change comes with a migration that cleans the rows and validates the constraint again.

-- Whether a display name is one the table keeps (see above).
create or replace function app.display_name_is_clean(name text)
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
