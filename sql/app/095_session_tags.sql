-- What a session's tag may be, as the table's CHECK holds it (focus_sessions_tag_check, bound in
-- 0022_pages_daily_tags.sql). api.session_tag (sql/api/050_focus_sessions.sql) normalises what a
-- client sends to this form, or answers 400 before the table would refuse.
-- The live definition: loaded on every migrate (create or replace), see sql/app/README.md.
-- IMMUTABLE and read by a CHECK: a stricter body changes no stored row, so such a change comes
-- with a migration that cleans the rows and validates the constraint again.

-- Whether a tag is in its one normal form: the character rules of text shown to others
-- (app.shown_text_is_clean), lower case, single spaces between words, 1 to 32 characters.
-- "Math" and " math " are one tag, "math", so stats by tag add them up.
create or replace function app.session_tag_is_clean(tag text)
returns boolean
language sql immutable parallel safe
as $$
    select app.shown_text_is_clean(session_tag_is_clean.tag)
       and session_tag_is_clean.tag = lower(session_tag_is_clean.tag)
       and position('  ' in session_tag_is_clean.tag) = 0
       and length(session_tag_is_clean.tag) between 1 and 32
$$;
comment on function app.session_tag_is_clean(text) is
    'What app.focus_sessions.tag may hold when set: the character rules of app.shown_text_is_clean, lower case, '
    'single spaces, 1 to 32 characters.';
