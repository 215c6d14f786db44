-- Added NOT VALID (new rows are checked from now on); validated by a later migration.
set local lock_timeout = '2s';
alter table app.gifts add constraint gifts_note_short check (length(note) <= 200) not valid;
alter table app.gifts add constraint gifts_item_fk foreign key (item_id) references app.items (id) not valid;
alter table app.events validate constraint events_type_check;
