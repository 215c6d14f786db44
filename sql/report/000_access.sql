-- report: read-only views for DBAs, who log in as focus_report.
grant usage on schema report to focus_report;
