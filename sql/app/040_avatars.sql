-- The avatar size limit, written once. Used by 0009_avatar_limit.sql's check.
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
