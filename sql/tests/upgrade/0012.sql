-- Data present when 0013 arrives (its backfill counts them): a session ending at a UTC midnight
-- for a user in UTC, paid; a live session still running (not counted; started after that
-- midnight, so the two never overlap in the minutes after it); a purchase-free grant.
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes, coins_earned)
values ('12121212-1212-4212-8212-121212121212', '22222222-2222-4222-8222-222222222222', 'offline',
        date_trunc('day', now()) - interval '30 minutes', date_trunc('day', now()),
        tstzrange(date_trunc('day', now()) - interval '30 minutes', date_trunc('day', now())), 30, 30);
insert into app.coin_ledger (user_id, entry, amount, reason, session_id)
values ('22222222-2222-4222-8222-222222222222', 'earn', 30, 'focus session', '12121212-1212-4212-8212-121212121212');
insert into app.focus_sessions (id, user_id, source, planned_minutes, started_at, occupies)
values ('13131313-1313-4313-8313-131313131313', '22222222-2222-4222-8222-222222222222', 'live', 25,
        greatest(now() - interval '5 minutes', date_trunc('day', now())),
        tstzrange(greatest(now() - interval '5 minutes', date_trunc('day', now())), now() + interval '175 minutes'));
select app.grant_coins('22222222-2222-4222-8222-222222222222', 50, 'upgrade data');
