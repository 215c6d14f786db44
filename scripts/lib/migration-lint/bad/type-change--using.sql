set local lock_timeout = '2s';
alter table app.users alter column display_name type varchar(80) using left(display_name, 80);
