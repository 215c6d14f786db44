-- Every view and function in report is usable by focus_report (and nothing outside report is).
grant select on all tables in schema report to focus_report;
grant execute on all functions in schema report to focus_report;
-- focus_monitor (the metrics exporter's login, sql/bootstrap.sql) reads the operations views
-- only (070_operations.sql), not the views of users' data. A cluster bootstrapped before the
-- role existed gets the grants at the first migrate after sql/bootstrap.sql ran again.
do $$
begin
    if exists (select from pg_roles where rolname = 'focus_monitor') then
        grant usage on schema report to focus_monitor;
        grant select on report.outbox_backlog, report.scheduled_job_status to focus_monitor;
    end if;
end
$$;
