-- 0036 room codes and what a block leaves (2026-12-06, docs/rooms.md, docs/moderation.md).
--
-- Joins by code are throttled per account: every join that answers 404 room_not_found (an
-- unknown code, or the code of a room the caller may not join) is a row of
-- app.room_join_failures; past room_settings.max_join_failures of them within
-- join_failure_window, joins by code answer 429 too_many_join_attempts. A blocked user sees the
-- one who blocked them as the block left them: the blocker's name and avatar at the block are
-- kept on the block's row (api.user_card_for reads them).

alter table app.room_settings
    add column max_join_failures integer not null default 10 check (max_join_failures > 0),
    add column join_failure_window interval not null default interval '15 minutes'
        check (join_failure_window between interval '1 minute' and interval '1 day');
comment on column app.room_settings.max_join_failures is
    'Joins by code answered 404 room_not_found allowed per account within join_failure_window; past it every join by '
    'code is 429 too_many_join_attempts until the oldest leaves the window.';
comment on column app.room_settings.join_failure_window is
    'The window max_join_failures counts over (pruned past it by api.rooms_settle).';

-- No foreign key on purpose, as for app.friend_request_attempts: a referencing row would take a
-- KEY SHARE lock on the user's row inside the join's lock order. A deleted account's rows go
-- with its personal data (api.erase_account).
create table app.room_join_failures (
    user_id    uuid not null,
    failed_at  timestamptz not null default now()
);
create index room_join_failures_user_time on app.room_join_failures (user_id, failed_at);
comment on table app.room_join_failures is
    'POST /rooms/{code}/join answered 404 room_not_found, one row each, counted per account by the join throttle.';

-- The blocker as the blocked user last saw them: display name and avatar at the block.
alter table app.blocks
    add column blocker_display_name text,
    add column blocker_avatar_updated_at timestamptz;
update app.blocks b
set blocker_display_name = u.display_name, blocker_avatar_updated_at = a.updated_at
from app.users u left join app.avatars a on a.user_id = u.id
where u.id = b.blocker;
alter table app.blocks alter column blocker_display_name set not null;
comment on column app.blocks.blocker_display_name is
    'The blocker''s display name when they blocked: what the blocked user is shown of them from then on (blocks '
    'from before 0036: the name then).';
comment on column app.blocks.blocker_avatar_updated_at is
    'The blocker''s avatar version when they blocked (null: none), shown to the blocked user with the name.';
create trigger blocks_keep_blocker_card
before insert on app.blocks
for each row execute function app.blocks_keep_blocker_card();
