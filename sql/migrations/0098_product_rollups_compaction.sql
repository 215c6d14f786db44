-- 0098 the by-client rollups' past days folded (2026-12-07): the scheduled job
-- compact_product_rollups (api.job_step, app.compact_product_rollups in sql/app/070_counters.sql)
-- folds the 8 shards of each UTC day before yesterday of app.client_day_totals and
-- app.client_ledger_day_totals (0095) into one row, so the product views read a year of every
-- client in about 365 x clients rows (docs/performance.md). A job is one row of its registry.
set local lock_timeout = '2s';

insert into app.scheduled_jobs (name, every, budget, description)
values ('compact_product_rollups', interval '1 hour', interval '10 seconds',
        'Folds the past days'' shards of the by-client product rollups into one row (app.compact_product_rollups).');
