set local lock_timeout = '2s';
alter table app.gifts add constraint gifts_item_fk foreign key (item_id) references app.items (id);
