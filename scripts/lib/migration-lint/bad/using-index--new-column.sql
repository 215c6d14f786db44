set local lock_timeout = '2s';
alter table app.users add column handle text unique;
