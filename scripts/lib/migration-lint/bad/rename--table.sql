set local lock_timeout = '2s';
alter table app.gifts rename to presents;
