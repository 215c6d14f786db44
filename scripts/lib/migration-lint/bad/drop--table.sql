set local lock_timeout = '2s';
drop table app.gift_notes;
