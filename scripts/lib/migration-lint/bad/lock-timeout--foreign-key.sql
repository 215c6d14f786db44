-- A new table referencing an existing one locks the referenced table (SHARE ROW EXCLUSIVE).
create table app.notes (id bigint primary key, user_id uuid not null references app.users (id));
