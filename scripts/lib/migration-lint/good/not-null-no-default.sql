set local lock_timeout = '2s';
alter table app.gifts add column note_limit integer not null default 200, add column note text;
create table app.tickets (id bigint primary key);
alter table app.tickets add column label text not null;
