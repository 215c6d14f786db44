set local lock_timeout = '2s';
alter table app.gifts add constraint gifts_note_short check (length(note) <= 200);
