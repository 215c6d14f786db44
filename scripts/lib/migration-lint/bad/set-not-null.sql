set local lock_timeout = '2s';
alter table app.users alter column time_zone set not null;
