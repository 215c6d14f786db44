-- An opt-out without its reason does not count, and says so.
set local lock_timeout = '2s';
-- lint: allow drop
drop table app.gift_notes;
