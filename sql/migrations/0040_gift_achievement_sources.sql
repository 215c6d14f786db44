-- 0040 gift achievement sources (2026-12-06): accepting a gift answers `achievements_unlocked`
-- (an accepted pet can complete every_pet), so the receiver's device, which hears no event of
-- its own unlock, learns it from the answer, and accepting again answers the same list
-- (api.gifts_accept, api.with_achievements; docs/achievements.md, docs/gifts.md). Its unlocks are
-- marked unlocked_by 'gift:<gift id>'; the check of 0037 named sessions, items and friendships
-- only, so it is dropped and added again with gifts.
--
-- The check is added NOT VALID and then validated, as two statements: the add checks only new
-- rows, the validate scans the rows there are. The migrator runs every migration in one
-- transaction, so here the add's lock is held until the validate commits anyway (the table is
-- small: one row per unlock); the split is the form a check added to a large table takes, kept
-- so that this one reads like them. Rows of before this migration name a session, an item, a
-- friendship or nothing: all pass.
alter table app.user_achievements drop constraint user_achievements_unlocked_by_check;
alter table app.user_achievements
    add constraint user_achievements_unlocked_by_check
        check (unlocked_by ~ '^(session|item|friendship|gift):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')
        not valid;
alter table app.user_achievements validate constraint user_achievements_unlocked_by_check;
comment on column app.user_achievements.unlocked_by is
    'The caller''s write whose answer listed this unlock (session:<id>, item:<id>, friendship:<id>, gift:<id>), so a '
    'repeat of it answers the same achievements_unlocked; null when no answer of the person''s listed it.';
