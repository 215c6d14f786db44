-- The index was built CONCURRENTLY by an earlier (no-transaction) migration; the constraint
-- adopts it without a scan.
set local lock_timeout = '2s';
alter table app.users add constraint users_handle_key unique using index users_handle_idx;
