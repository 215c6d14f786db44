-- The tables this file makes need no lock_timeout; the existing one does, set first.
create table app.tickets (id bigint primary key, note text);
alter table app.tickets add column seen boolean not null default false;
create index tickets_note_idx on app.tickets (note);
set local lock_timeout = '2s';
alter table app.gifts add column note text;
