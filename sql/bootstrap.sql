-- bootstrap.sql: what a superuser does once per cluster, before the first migrate.
-- Creates the four roles, the database owned by focus_owner and pg_stat_statements in it;
-- safe to run again.
-- Run with: psql -v ON_ERROR_STOP=1 -d postgres -f sql/bootstrap.sql
--
--   focus_owner   owns every object and runs migrations and seeds
--   focus_api     what the server logs in as: EXECUTE on api endpoints, no table privileges
--   focus_report  what DBAs log in as: SELECT on schema report, and the statistics views
--                 (pg_read_all_stats), nothing else
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

-- pg_stat_statements (2026-12-05): what the database spends its time on, per statement, for
-- DBAs (report.slowest_statements; docs/operations.md). Not a trusted extension, so created
-- here; it counts only where the server loads it (shared_preload_libraries). It counts the
-- statements inside functions too (track = all, set for this database so that it travels to
-- replicas and copies): the server sends one statement per route, and what makes a route slow
-- runs inside its functions. focus_report reads every role's statement texts through
-- pg_read_all_stats (otherwise only its own).
alter database focus_island set pg_stat_statements.track = 'all';
\connect focus_island
select 'create extension pg_stat_statements with schema public'
where not exists (select from pg_extension where extname = 'pg_stat_statements')
\gexec
select 'grant pg_read_all_stats to focus_report'
where not pg_has_role('focus_report', 'pg_read_all_stats', 'member')
\gexec
