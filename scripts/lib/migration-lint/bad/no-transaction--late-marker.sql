-- The marker counts on the first line only.
-- migrate: no-transaction
set lock_timeout = '2s';
create table app.notes (id bigint primary key);
