-- 0018 names and token ends (2026-12-01).
--
-- Display names: what a name may hold is now a rule of the table, written once in
-- app.display_name_is_clean (sql/app/090_display_names.sql): NFC (one spelling per name, so "é" is not two names), trimmed,
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

create trigger auth_tokens_end_deleted
after delete on app.auth_tokens
for each row execute function app.auth_tokens_notify_end();

create trigger auth_tokens_end_revoked
after update of revoked_at, expires_at on app.auth_tokens
for each row
when ((old.revoked_at is null and new.revoked_at is not null) or new.expires_at < old.expires_at)
execute function app.auth_tokens_notify_end();

update app.avatars a
set data = app.image_without_metadata(a.data), updated_at = now()
where a.data <> app.image_without_metadata(a.data);
