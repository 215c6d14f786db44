-- Data after 0007: an event for a user and one for everyone, as the triggers write them.
insert into app.events (user_id, type, payload)
values ('11111111-1111-4111-8111-111111111111', 'balance.changed', '{"balance": 60}'),
       (null, 'catalog.changed', '{"version": 1}');
