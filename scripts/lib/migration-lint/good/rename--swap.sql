-- A table renamed and made again under its old name (partitioned, the old one attached as its
-- first partition): readers keep the name they read.
set local lock_timeout = '2s';
lock table app.gifts in access exclusive mode;
alter table app.gifts rename to gifts_part_before;
create table app.gifts (id uuid not null, created_at timestamptz not null, primary key (id, created_at))
    partition by range (created_at);
alter table app.gifts attach partition app.gifts_part_before for values from (minvalue) to ('2026-12-08');
