-- Data after 0022: a tagged session (the one from 0003 keeps no tag).
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, tag)
values ('22222222-0022-4022-8022-222222222222', '11111111-1111-4111-8111-111111111111', 'offline',
        now() - interval '5 hours', now() - interval '4 hours', tstzrange(now() - interval '5 hours', now() - interval '4 hours'),
        60, 'deep work');
