-- A validated check (is not null) lets PostgreSQL skip the scan; the opt-out says which.
set local lock_timeout = '2s';
-- lint: allow set-not-null (users_time_zone_not_null, validated in the migration before)
alter table app.users alter column time_zone set not null;
