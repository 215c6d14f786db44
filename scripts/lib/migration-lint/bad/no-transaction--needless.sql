-- migrate: no-transaction
-- Nothing here needs it, and outside a transaction a failure halfway leaves the first half.
set lock_timeout = '2s';
alter table app.gifts add column note text;
alter table app.gifts add column seen boolean not null default false;
