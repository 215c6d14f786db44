-- 0037 achievement sources (2026-12-06): which write unlocked each achievement, so that a repeat
-- of that write (a finish replayed, an offline session uploaded again with its id, an owned
-- item bought again, an accepted request accepted again) answers the `achievements_unlocked`
-- its first answer carried (api.with_achievements; docs/achievements.md, docs/api-guide.md).
--
-- unlocked_by names the caller's own write whose answer listed the unlock: 'session:<id>'
-- (finish, offline record, batch item), 'item:<id>' (a purchase) or 'friendship:<id>' (accept,
-- asking back). Null for a grant no answer of the person's listed: a backfill, what another
-- person's write unlocked for them (a friend's acceptance, another member finishing a room
-- last), an item from a gift or the starters, and every unlock from before this migration
-- (which write unlocked those was not recorded: their repeats answer [] for them).
alter table app.user_achievements
    add column unlocked_by text
        check (unlocked_by ~ '^(session|item|friendship):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$');
comment on column app.user_achievements.unlocked_by is
    'The caller''s write whose answer listed this unlock (session:<id>, item:<id>, friendship:<id>), so a repeat of it '
    'answers the same achievements_unlocked; null when no answer of the person''s listed it.';

-- Which write accepted a friendship: asking back (POST /friend-requests to someone who had asked
-- you, answered {friend, auto_accepted: true}) or the accept route. Asking again once you asked
-- back repeats that write and answers as it did; after the accept route it stays 409
-- already_friends. False for every friendship accepted before this migration.
alter table app.friendships
    add column accepted_by_asking boolean not null default false,
    add constraint friendships_accepted_by_asking_is_accepted check (not accepted_by_asking or status = 'accepted');
comment on column app.friendships.accepted_by_asking is
    'True when the receiver accepted by asking back (POST /friend-requests), so asking again repeats that answer.';

-- The balance a session's finish or offline record answered (reward of what it unlocked
-- included), so a repeat of that write answers the same balance whatever moved it since
-- (api.session_answer). Null for a session no finish or record answered: running, abandoned,
-- or ended before this migration (those repeat with the balance of the moment).
alter table app.focus_sessions add column balance_after integer check (balance_after >= 0);
comment on column app.focus_sessions.balance_after is
    'The balance the finish or offline record of this session answered; its repeats answer it again. Null before one did.';
