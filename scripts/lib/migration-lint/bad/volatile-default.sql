set local lock_timeout = '2s';
alter table app.gifts add column token uuid not null default gen_random_uuid();
