-- Data after 0023: a push token on the first account's sign-in, its push settings, and a push
-- waiting in the outbox.
insert into app.push_tokens (token, user_id, auth_token_id, platform, environment, app_version, locale)
select repeat('ab', 32), t.user_id, t.id, 'apns', 'production', '2.1.0', 'es'
from app.auth_tokens t where t.user_id = '11111111-1111-4111-8111-111111111111' order by t.created_at limit 1;
insert into app.push_settings (user_id, quiet_start, quiet_end, muted)
values ('11111111-1111-4111-8111-111111111111', '22:00', '07:00', '{friend_request.accepted}');
insert into app.push_outbox (token, event_id, type, data)
values (repeat('ab', 32), 1, 'friend_request.received',
        jsonb_build_object('request_id', gen_random_uuid(), 'user_id', '22222222-2222-4222-8222-222222222222'));
