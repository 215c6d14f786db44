-- Every view and function in report is usable by focus_report (and nothing outside report is).
grant select on all tables in schema report to focus_report;
grant execute on all functions in schema report to focus_report;
