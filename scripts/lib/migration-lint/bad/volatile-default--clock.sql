set local lock_timeout = '2s';
alter table app.gifts add column seen_at timestamptz default clock_timestamp();
