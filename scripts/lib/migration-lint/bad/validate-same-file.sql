-- Validated in the file that added it: the lock the add took is held while the validation scans.
set local lock_timeout = '2s';
alter table app.gifts add constraint gifts_note_short check (length(note) <= 200) not valid;
alter table app.gifts validate constraint gifts_note_short;
