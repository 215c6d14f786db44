-- An opt-out the statement does not need is a finding too, so none outlives its reason.
set local lock_timeout = '2s';
-- lint: allow drop (no release reads it)
alter table app.gifts add column note text;
