-- One opt-out may name several rules; a block comment works as well.
set local lock_timeout = '2s';
-- lint: allow drop, not-null-no-default (app.gift_notes is unread, and empty, since the release of 0037)
alter table app.gift_notes drop column body, add column kept boolean not null;
/* lint: allow index-concurrently (app.gift_notes has no rows and no writers) */
create index gift_notes_id_idx on app.gift_notes (id);
