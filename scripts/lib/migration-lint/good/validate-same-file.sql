-- A later migration validates what an earlier one added NOT VALID (SHARE UPDATE EXCLUSIVE:
-- reads and writes go on while it scans).
set local lock_timeout = '2s';
alter table app.gifts validate constraint gifts_note_short;
