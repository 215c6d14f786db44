-- A column no earlier migration made: its old type is unknown, so the change is refused.
set local lock_timeout = '2s';
alter table app.users alter column nickname type text;
