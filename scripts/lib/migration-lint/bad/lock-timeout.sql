-- A brief lock still queues every reader behind the transaction it waits for.
alter table app.gifts add column note text;
