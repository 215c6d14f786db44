set local lock_timeout = '2s';
alter table app.gifts add column note_limit integer not null;
