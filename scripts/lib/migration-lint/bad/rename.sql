set local lock_timeout = '2s';
alter table app.users rename column display_name to shown_name;
