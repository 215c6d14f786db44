-- Constant and stable defaults are stored once (PostgreSQL 11 and later): no rewrite.
set local lock_timeout = '2s';
alter table app.gifts add column note_limit integer not null default 200,
    add column flags jsonb not null default '{}'::jsonb,
    add column noticed_at timestamptz not null default now(),
    add column noticed_on date default current_date;
create table app.tickets (id uuid primary key default gen_random_uuid(), n bigserial);
