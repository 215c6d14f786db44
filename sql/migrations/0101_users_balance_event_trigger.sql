-- 0101 (2026-12-07): the balance's event in a trigger of its own.
--
-- users_events told friends of a new name or bio and wrote balance.changed, one function for
-- both, so its body had to tell the two apart, and it read the bio through to_jsonb of the
-- whole row, twice, because 0018's name clean-up fires it before 0019 adds the column: about
-- 95,000 instructions of every balance change, each purchase among them (docs/performance.md,
-- "Events by instruction count"). Now the bindings decide and the bodies compare nothing:
-- users_events fires on a new name or bio, users_events_balance on a new balance, in that
-- order (after-triggers fire by name), so the events of one update keep the order they had.
-- Catalog changes on app.users, no scan. Between this commit and the load of sql/app that ends
-- the same migrate, the old users_events body still writes balance.changed too: an update
-- that changes a name and the balance at once in that moment writes that event twice, with
-- the same balance.
set local lock_timeout = '2s';

create or replace trigger users_events
after update on app.users
for each row
when (new.display_name is distinct from old.display_name or new.bio is distinct from old.bio)
execute function app.users_events();

create trigger users_events_balance
after update on app.users
for each row
when (new.balance is distinct from old.balance)
execute function app.users_events_balance();
