set local lock_timeout = '2s';
alter domain app.event_type add constraint event_type_known check (value <> '');
