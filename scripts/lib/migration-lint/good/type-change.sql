-- Binary-compatible changes: no rewrite (the lock is brief).
create table app.labels (name varchar(20), code varchar(8), amount numeric(10, 2));
alter table app.labels alter column code type varchar(16);
alter table app.labels alter column amount type numeric(12, 2);
alter table app.labels alter column name type text;
alter table app.labels alter column name type varchar;
