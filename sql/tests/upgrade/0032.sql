-- Data after 0032: an event whose id is made of its transaction's id (app.next_event_id), above
-- every id written before the upgrade.
insert into app.events (user_id, type, payload)
values ('11111111-1111-4111-8111-111111111111', 'balance.changed', '{"balance": 60}');
