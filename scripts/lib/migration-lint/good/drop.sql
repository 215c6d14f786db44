set local lock_timeout = '2s';
-- lint: allow drop (no release reads app.gift_notes since 0037)
drop table app.gift_notes;
create table app.scratch (id bigint);
drop table app.scratch;
create view app.gift_counts as select 1 as n;
drop view app.gift_counts;
