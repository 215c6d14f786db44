-- Set after the statement it should have guarded.
create trigger gifts_touch before update on app.gifts for each row execute function app.touch();
set local lock_timeout = '2s';
