-- 0051 the ledger's archive may delete (2026-12-06; 0050 says why).
--
-- app.coin_ledger stays append-only for everyone else: an update is always refused, a delete
-- unless the transaction-local setting focus.ledger_archive is 'on', which app.archive_ledger
-- sets around its own delete only (as focus.bulk_import in 0042). The statement-level WHEN is
-- evaluated before the trigger function is called. The previous release never deletes.
set local lock_timeout = '2s';

drop trigger coin_ledger_append_only on app.coin_ledger;
create trigger coin_ledger_append_only
before update on app.coin_ledger
for each statement execute function app.forbid_change();
create trigger coin_ledger_archive_only
before delete on app.coin_ledger
for each statement when (current_setting('focus.ledger_archive', true) is distinct from 'on')
execute function app.forbid_change();
