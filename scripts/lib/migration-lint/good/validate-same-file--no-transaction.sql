-- migrate: no-transaction
-- Outside a transaction each statement commits alone: the add's lock is gone when the
-- validation (SHARE UPDATE EXCLUSIVE: reads and writes go on) scans.
set lock_timeout = '2s';
alter table app.gifts add constraint gifts_note_short check (length(note) <= 200) not valid;
alter table app.gifts validate constraint gifts_note_short;
create index concurrently gifts_note_idx on app.gifts (note);
