-- Blocks: what a block keeps of the blocker for the blocked user's eyes. Bound in
-- 0036_room_codes_and_block_cards.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- A new block row holds the blocker's display name and avatar version as they are now, whoever
-- writes it (POST /users/{id}/block, a DBA, a test): api.user_card_for shows the blocked user
-- these from then on, so a later rename or new avatar does not reach them.
create or replace function app.blocks_keep_blocker_card()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    select u.display_name, a.updated_at into new.blocker_display_name, new.blocker_avatar_updated_at
    from app.users u left join app.avatars a on a.user_id = u.id
    where u.id = new.blocker;
    return new;
end
$$;
