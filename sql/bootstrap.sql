-- bootstrap.sql: what a superuser does once per cluster, before the first migrate.
-- Creates the four roles and the database owned by focus_owner; safe to run again.
-- Run with: psql -v ON_ERROR_STOP=1 -d postgres -f sql/bootstrap.sql
--
--   focus_owner   owns every object and runs migrations and seeds
--   focus_api     what the server logs in as: EXECUTE on api endpoints, no table privileges
--   focus_report  what DBAs log in as: SELECT on schema report, nothing else
--   focus_monitor what the metrics exporter logs in as (deploy/prometheus/postgres-exporter.yml):
--                 pg_monitor (replication and archiver statistics) and the operations views of
--                 schema report (granted by sql/report/999_grants.sql at migrate)
-- Local clusters use peer/trust authentication; elsewhere set passwords with \password.

select format('create role %I login', name)
from unnest(array['focus_owner', 'focus_api', 'focus_report', 'focus_monitor']) as name
where not exists (select from pg_roles where rolname = name)
\gexec

-- A request that runs this long is a bug or an attack: cancel it (answered as 503 timeout).
alter role focus_api set statement_timeout = '5s';
-- Our statements are short and planned once; JIT compiling them costs milliseconds each time
-- a fresh table's missing statistics make the planner think they are big.
alter role focus_api set jit = off;
alter role focus_report set default_transaction_read_only = on;
-- Scraped every 15 s or so: read-only, and a query that hangs is cancelled before the next.
grant pg_monitor to focus_monitor;
alter role focus_monitor set default_transaction_read_only = on;
alter role focus_monitor set statement_timeout = '5s';
alter role focus_monitor set jit = off;

select 'create database focus_island owner focus_owner'
where not exists (select from pg_database where datname = 'focus_island')
\gexec

alter database focus_island set timezone = 'UTC';
revoke all on database focus_island from public;
grant connect on database focus_island to focus_api, focus_report, focus_monitor;
