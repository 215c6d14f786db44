-- Data after 0036: a join that found no room, and a block unblocked and made again (its row
-- keeps the blocker's card, filled by the trigger).
insert into app.room_join_failures (user_id) values ('22222222-2222-4222-8222-222222222222');
delete from app.blocks where blocker = '11111111-1111-4111-8111-111111111111' and blocked = '22222222-2222-4222-8222-222222222222';
insert into app.blocks (blocker, blocked) values ('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222');
