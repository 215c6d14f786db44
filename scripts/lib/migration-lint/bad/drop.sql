set local lock_timeout = '2s';
alter table app.users drop column bio;
