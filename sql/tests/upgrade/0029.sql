-- Data after 0029: a streak freeze bought through the ledger and held, one that covered a day,
-- and the event of that use, as the endpoint and app.apply_streak_freezes write them.
insert into app.streak_freezes (id, user_id, slot, price, bought_at, covered_day, used_at)
values ('29292929-0001-4929-8929-292929292929', '11111111-1111-4111-8111-111111111111', 1, 20,
        '2026-01-06 08:00:00+00', null, null),
       ('29292929-0002-4929-8929-292929292929', '11111111-1111-4111-8111-111111111111', null, 0,
        '2026-01-04 08:00:00+00', '2026-01-04', '2026-01-05 09:00:00+00');
insert into app.coin_ledger (user_id, entry, amount, reason, freeze_id)
values ('11111111-1111-4111-8111-111111111111', 'freeze', -20, 'streak freeze', '29292929-0001-4929-8929-292929292929');
insert into app.events (user_id, type, payload)
values ('11111111-1111-4111-8111-111111111111', 'streak.frozen', '{"day": "2026-01-04", "freezes_held": 1}');
