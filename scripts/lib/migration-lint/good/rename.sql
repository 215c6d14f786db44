-- Renaming what this file made, or with the reason no release reads the old name.
set local lock_timeout = '2s';
create table app.draft (id bigint primary key, label text);
alter table app.draft rename column label to title;
alter table app.draft rename to drafts;
-- lint: allow rename (app.gift_notes has been unread since the release of 0037)
alter table app.gift_notes rename to gift_notes_retired;
