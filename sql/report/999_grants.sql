-- Every view in report is readable by focus_report (and nothing outside report is).
grant select on all tables in schema report to focus_report;
