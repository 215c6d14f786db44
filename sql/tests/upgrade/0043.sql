-- Data after 0043: events the partitioning of app.events (0044, 0045) must carry over, one of
-- them older than the retention (it is kept in the partition of what came before, and goes with it).
insert into app.events (user_id, type, payload, created_at)
values ('11111111-1111-4111-8111-111111111111', 'friend.updated', '{"user_id": "22222222-2222-4222-8222-222222222222"}', now() - interval '1 hour'),
       ('11111111-1111-4111-8111-111111111111', 'friend.updated', '{"user_id": "22222222-2222-4222-8222-222222222222"}', now() - interval '8 days'),
       (null, 'catalog.changed', '{"version": 1}', now() - interval '1 minute');
