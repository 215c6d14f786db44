-- 0042 bulk work beside live traffic (2026-12-06): a staging table for importing focus sessions
-- and a switch that lets the import do the row triggers' work once per batch.
--
-- A DBA loading history straight into app.focus_sessions ran its seven row triggers on every
-- row (the account-age check, the friends' and own devices' events, the minutes rollup, the
-- achievement and streak-freeze checks, the UTC-day counters): about 200 rows a second once the
-- tables had grown (docs/performance.md, "Bulk work"). The import path
-- (app.import_sessions, sql/app/150_bulk.sql; docs/operations.md, "Bulk work beside live
-- traffic") copies rows into app.session_import, then moves them in batches, each batch one
-- insert with the rollups and counters written set-based. While it inserts, it sets the
-- transaction-local setting focus.bulk_import to 'on', and each of the seven triggers now has
-- a WHEN clause that skips it then: PostgreSQL evaluates the clause before calling the
-- function (or queueing the deferred one), so the skipped work costs nothing per row, and the
-- live path only reads one unset setting per trigger. ALTER TABLE ... DISABLE TRIGGER would
-- have switched the triggers off for every session at once.
--
-- Each trigger is dropped and made again with its old definition and the clause; the lock it
-- takes (SHARE ROW EXCLUSIVE on app.focus_sessions) is held to this migration's commit, which is
-- a few milliseconds after it is granted.
set local lock_timeout = '2s';

create table app.session_import (
    id               uuid primary key,
    user_id          uuid not null,
    source           text not null default 'offline' check (source in ('live', 'offline')),
    planned_minutes  integer,
    started_at       timestamptz not null,
    ended_at         timestamptz not null,
    minutes          integer not null,
    abandoned        boolean not null default false,
    tag              text,
    rating           text,
    rated_at         timestamptz
);
comment on table app.session_import is
    'Staging for a DBA''s import of finished focus sessions (\copy into it, then CALL app.import_sessions_all()): '
    'each batch moved into app.focus_sessions, where its constraints are checked. No coins, no events. '
    'docs/operations.md, "Bulk work beside live traffic".';

drop trigger focus_sessions_after_account on app.focus_sessions;
create trigger focus_sessions_after_account
before insert or update of started_at, user_id on app.focus_sessions
for each row when (current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_after_account();

drop trigger focus_sessions_events on app.focus_sessions;
create trigger focus_sessions_events
after insert or update or delete on app.focus_sessions
for each row when (current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_events();

drop trigger focus_sessions_own_events on app.focus_sessions;
create trigger focus_sessions_own_events
after insert or update of ended_at on app.focus_sessions
for each row when (current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_own_events();

drop trigger focus_sessions_rollup on app.focus_sessions;
create trigger focus_sessions_rollup
after insert or delete or update of user_id, ended_at, minutes on app.focus_sessions
for each row when (current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_rollup();

drop trigger focus_sessions_achievements on app.focus_sessions;
create trigger focus_sessions_achievements
after insert or update of ended_at, minutes on app.focus_sessions
for each row when (new.ended_at is not null and new.minutes > 0
                   and current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_achievements();

drop trigger focus_sessions_streak_freezes on app.focus_sessions;
create trigger focus_sessions_streak_freezes
after insert or update of ended_at, minutes on app.focus_sessions
for each row when (new.ended_at is not null and new.minutes > 0
                   and current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_streak_freezes();

drop trigger focus_sessions_utc_day_totals on app.focus_sessions;
create constraint trigger focus_sessions_utc_day_totals
after insert or delete or update of user_id, source, ended_at, minutes, coins_earned on app.focus_sessions
deferrable initially deferred
for each row when (current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_day_totals();
