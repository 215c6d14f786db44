-- 0035 limit days and fresh accounts (2026-12-06).
--
-- Limits counted per day count UTC days (api.limit_day), never the user's local day, which a
-- change of settings.time_zone moved: gifts' daily limits count the sender's UTC day from here
-- (docs/economy.md, "Limits count UTC days"). And a new account cannot mint value for another
-- (docs/gifts.md, "What a farmer could use"):
--   * a focus session never starts before its account was made (the trigger below; the offline
--     upload answers 422 invalid_session first). Sessions written before this migration are
--     left as they are: they were paid then, and the trigger checks writes only;
--   * sending a gift needs a verified email and an account at least min_sender_account_age old
--     (403 gift_sender_not_eligible).

alter table app.gift_settings
    add column min_sender_account_age interval not null default interval '7 days'
        check (min_sender_account_age between interval '0' and interval '365 days');
comment on table app.gift_settings is
    'max_per_day: gifts one person may send per UTC day (api.limit_day), whatever became of them; '
    'max_coins_per_day: coins they may pay for gifts per UTC day (coin gifts and item prices together); '
    'expires_after: how long a gift waits for its receiver before it expires and its sender is refunded; '
    'min_sender_account_age: how old an account must be (app.users.created_at) to send a gift, its email verified too.';

create trigger focus_sessions_after_account
before insert or update of started_at, user_id on app.focus_sessions
for each row execute function app.focus_sessions_after_account();
