-- Data present when 0004 arrives: a paid session, a tip shown.
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, coins_earned)
values ('44444444-4444-4444-8444-444444444444', '11111111-1111-4111-8111-111111111111', 'offline',
        now() - interval '2 hours', now() - interval '1 hour', tstzrange(now() - interval '2 hours', now() - interval '1 hour'), 60, 60);
insert into app.coin_ledger (user_id, entry, amount, reason, session_id)
values ('11111111-1111-4111-8111-111111111111', 'earn', 60, 'focus session', '44444444-4444-4444-8444-444444444444');
insert into app.mindfulness_tips (id, rating_level, title, content)
values ('55555555-5555-4555-8555-555555555555', 'good', 'Early tip', 'From before friends existed.');
insert into app.tip_views (user_id, tip_id, session_id)
values ('11111111-1111-4111-8111-111111111111', '55555555-5555-4555-8555-555555555555', '44444444-4444-4444-8444-444444444444');
