-- Data after 0033: events whose type is checked by the domain app.event_type, one of a type
-- that pushes (events_push's WHEN clause, bound from app.push_types) and one that does not.
insert into app.events (user_id, type, payload)
values ('11111111-1111-4111-8111-111111111111', 'balance.changed', '{"balance": 70}'),
       ('11111111-1111-4111-8111-111111111111', 'gift.received',
        '{"gift_id": "33333333-3333-4333-8333-333333333333", "user_id": "22222222-2222-4222-8222-222222222222", "coins": 5}');
