-- integer to bigint: every row rewritten under ACCESS EXCLUSIVE.
set local lock_timeout = '2s';
alter table app.users alter column balance type bigint;
