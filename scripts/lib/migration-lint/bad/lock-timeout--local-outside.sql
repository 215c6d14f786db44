-- migrate: no-transaction
-- SET LOCAL does nothing outside a transaction.
set local lock_timeout = '2s';
create index concurrently gifts_note_idx on app.gifts (note);
drop index app.gifts_old_idx;
