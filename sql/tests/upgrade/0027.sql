-- Data after 0027: a completed room of two, its sessions, each member's bonus and an event, as
-- the endpoints and triggers write them; and a scheduled job that ran.
insert into app.rooms (id, code, host_id, planned_minutes, status, created_at, started_at, ended_at)
values ('27272727-2727-4727-8727-272727272727', 'K7M2QX9R', '11111111-1111-4111-8111-111111111111', 25, 'completed',
        '2026-01-05 09:58:00+00', '2026-01-05 10:00:00+00', '2026-01-05 10:26:00+00');
insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, ended_at, occupies, minutes, coins_earned)
values ('27272727-0001-4727-8727-272727272727', '11111111-1111-4111-8111-111111111111', 'live', 25,
        '2026-01-05 10:00:00+00', '2026-01-05 10:25:00+00', tstzrange('2026-01-05 10:00:00+00', '2026-01-05 10:25:00+00'), 25, 25),
       ('27272727-0002-4727-8727-272727272727', '22222222-2222-4222-8222-222222222222', 'live', 25,
        '2026-01-05 10:00:00+00', '2026-01-05 10:25:00+00', tstzrange('2026-01-05 10:00:00+00', '2026-01-05 10:25:00+00'), 25, 25);
insert into app.room_members (room_id, user_id, state, joined_at, session_id, outcome, ended_at)
values ('27272727-2727-4727-8727-272727272727', '11111111-1111-4111-8111-111111111111', 'joined', '2026-01-05 09:58:00+00',
        '27272727-0001-4727-8727-272727272727', 'completed', '2026-01-05 10:26:00+00'),
       ('27272727-2727-4727-8727-272727272727', '22222222-2222-4222-8222-222222222222', 'joined', '2026-01-05 09:59:00+00',
        '27272727-0002-4727-8727-272727272727', 'completed', '2026-01-05 10:26:00+00');
insert into app.coin_ledger (user_id, entry, amount, reason, session_id, room_id)
values ('11111111-1111-4111-8111-111111111111', 'earn', 25, 'focus session', '27272727-0001-4727-8727-272727272727', null),
       ('22222222-2222-4222-8222-222222222222', 'earn', 25, 'focus session', '27272727-0002-4727-8727-272727272727', null),
       ('11111111-1111-4111-8111-111111111111', 'bonus', 5, 'focus room completed', null, '27272727-2727-4727-8727-272727272727'),
       ('22222222-2222-4222-8222-222222222222', 'bonus', 5, 'focus room completed', null, '27272727-2727-4727-8727-272727272727');
insert into app.events (user_id, type, payload)
values ('22222222-2222-4222-8222-222222222222', 'room.ended',
        '{"room_id": "27272727-2727-4727-8727-272727272727", "status": "completed", "bonus": 5}');
update app.scheduled_jobs set last_run_at = now(), last_result = 0, next_run_at = now() + interval '1 minute' where name = 'prune';
