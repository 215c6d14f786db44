-- 0099 (2026-12-07): validates the check on app.account_deletion_requests.language that 0097 added
-- NOT VALID (SHARE UPDATE EXCLUSIVE: it blocks no read or write while it reads the queue).
set local lock_timeout = '2s';

alter table app.account_deletion_requests validate constraint account_deletion_requests_language_check;
