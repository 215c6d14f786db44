set local lock_timeout = '2s';
alter table app.users add constraint users_handle_key unique (handle);
