-- Data after 0020: an operator's release controls (a raised iOS minimum, a feature flag), each
-- statement announced to everyone as config.changed.
update app.client_platforms set min_version = '1.2.0', latest_version = '1.4.1' where platform = 'ios';
update app.release_settings set feature_flags = '{"focus_rooms": false}';
