-- migrate: no-transaction
-- A new column's check, validated in the file that adds it: outside a transaction the add's
-- lock is gone when the validation scans, so the marker has a reason without CONCURRENTLY.
set lock_timeout = '2s';
alter table app.gifts add column if not exists seen_count integer;
alter table app.gifts drop constraint if exists gifts_seen_count_check,
    add constraint gifts_seen_count_check check (seen_count >= 0) not valid;
alter table app.gifts validate constraint gifts_seen_count_check;
