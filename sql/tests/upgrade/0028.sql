-- Data after 0028: an unlocked achievement, its reward in the ledger and its event, as
-- app.grant_achievement writes them.
insert into app.user_achievements (user_id, achievement_code, unlocked_at)
values ('11111111-1111-4111-8111-111111111111', 'first_room', '2026-01-05 10:26:00+00');
insert into app.coin_ledger (user_id, entry, amount, reason, achievement_code)
values ('11111111-1111-4111-8111-111111111111', 'reward', 20, 'achievement', 'first_room');
insert into app.events (user_id, type, payload)
values ('11111111-1111-4111-8111-111111111111', 'achievement.unlocked',
        '{"user_id": "11111111-1111-4111-8111-111111111111", "code": "first_room"}');
