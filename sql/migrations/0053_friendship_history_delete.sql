-- 0053 the friendship history's archive may delete (2026-12-06; 0052 says why).
--
-- app.friendship_events stays append-only for everyone else: an update is always refused, a
-- delete unless the transaction-local setting focus.friendship_archive is 'on', which
-- app.archive_friendship_events sets around its own delete only (as 0051 for the ledger).
set local lock_timeout = '2s';

drop trigger friendship_events_append_only on app.friendship_events;
create trigger friendship_events_append_only
before update on app.friendship_events
for each statement execute function app.forbid_change();
create trigger friendship_events_archive_only
before delete on app.friendship_events
for each statement when (current_setting('focus.friendship_archive', true) is distinct from 'on')
execute function app.forbid_change();
