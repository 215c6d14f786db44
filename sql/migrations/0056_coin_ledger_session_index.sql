-- migrate: no-transaction
-- 0056 the earn entries found by their session (2026-12-06): moving a session to the archive
-- (app.archive_focus_sessions, 0055) deletes it from app.focus_sessions, and the foreign key
-- coin_ledger.session_id checks each deleted id against the ledger. Its only index on the
-- column is the partial unique one of earn entries (0003), which that check cannot use (it
-- names no entry kind): without this one, every moved session read the whole ledger (a batch of
-- 10,000 sessions did not finish in 10 s beside a million entries, scripts/archive-drill). Only
-- earn entries name a session, so the index is as small as the unique one.
set lock_timeout = '30s';
drop index concurrently if exists app.coin_ledger_session;
create index concurrently coin_ledger_session on app.coin_ledger (session_id) where session_id is not null;
