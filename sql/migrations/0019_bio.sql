-- 0019 bio (2026-12-01).
--
-- A bio: optional free text a person writes about themselves, shown on their Profile and to
-- friends on their island (GET /users/{id}). Null when unset, never empty; when set it keeps
-- the character rules of a display name (app.shown_text_is_clean, sql/app/090_display_names.sql)
-- and at most 160 characters: app.bio_is_clean. api.bio (sql/api/010_accounts.sql) answers 400
-- before the table would refuse, and adds the name blocklist (app.blocked_name_terms).
-- Existing accounts have no bio: no backfill.
--
-- Friends hear a changed bio as they hear a changed name (friend.updated): the users_events
-- trigger's condition gains the bio.

alter table app.users add column bio text constraint users_bio_check check (app.bio_is_clean(bio));
comment on column app.users.bio is
    'What the person writes about themselves (PATCH /me), shown to friends; null when unset; blanked by DELETE /me.';

drop trigger users_events on app.users;
create trigger users_events
after update on app.users
for each row
when (new.display_name is distinct from old.display_name or new.bio is distinct from old.bio
      or new.balance is distinct from old.balance)
execute function app.users_events();
