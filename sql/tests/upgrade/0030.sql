-- Data after 0030: a gift of coins accepted (the sender's hold, the receiver's credit) and one
-- of an item declined (the hold and the refund), with an event, as the endpoints and triggers
-- write them.
insert into app.gifts (id, sender_id, receiver_id, coins, item_id, paid, status, created_at, expires_at, ended_at)
values ('30303030-3030-4030-8030-303030303030', '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222',
        15, null, 15, 'accepted', '2026-01-06 09:00:00+00', '2026-01-13 09:00:00+00', '2026-01-06 10:00:00+00'),
       ('30303030-3031-4030-8030-303030303030', '22222222-2222-4222-8222-222222222222', '11111111-1111-4111-8111-111111111111',
        null, '33333333-3333-4333-8333-333333333333', 5, 'declined',
        '2026-01-06 09:00:00+00', '2026-01-13 09:00:00+00', '2026-01-06 11:00:00+00');
insert into app.coin_ledger (user_id, entry, amount, reason, gift_id)
values ('11111111-1111-4111-8111-111111111111', 'gift', -15, 'gift sent', '30303030-3030-4030-8030-303030303030'),
       ('22222222-2222-4222-8222-222222222222', 'gift', 15, 'gift received', '30303030-3030-4030-8030-303030303030'),
       ('22222222-2222-4222-8222-222222222222', 'gift', -5, 'gift sent', '30303030-3031-4030-8030-303030303030'),
       ('22222222-2222-4222-8222-222222222222', 'gift', 5, 'gift refunded', '30303030-3031-4030-8030-303030303030');
insert into app.events (user_id, type, payload)
values ('11111111-1111-4111-8111-111111111111', 'gift.accepted',
        '{"gift_id": "30303030-3030-4030-8030-303030303030", "user_id": "22222222-2222-4222-8222-222222222222"}');
