-- 0020 release controls (2026-12-01).
--
-- What an installed app must be told before anything else: the oldest build the server still
-- serves and the newest one in the store, per platform (app.client_platforms), maintenance
-- with its message (app.release_settings), and feature flags. GET /config serves these with
-- the economy a phone needs (app.economy_settings, app.avatar_max_bytes()), so nothing is
-- hard-coded in the app. A DBA changes any of them with one `update`; a statement trigger
-- writes a `config.changed` broadcast event (sql/app/110_release_controls.sql), which empties
-- every server's cached /config and admission snapshot at once, as catalog.changed does.
-- Versions are compared by app.client_version_key (1.10.0 > 1.9.9).

create table app.client_platforms (
    platform        text primary key check (platform ~ '^[a-z][a-z0-9-]{0,15}$'),
    min_version     text not null check (app.client_version_key(min_version) is not null),
    latest_version  text not null check (app.client_version_key(latest_version) is not null),
    store_url       text not null check (store_url ~ '^https://[^\s]+$' and length(store_url) <= 500),
    check (app.client_version_key(min_version) <= app.client_version_key(latest_version))
);
comment on table app.client_platforms is
    'One row per app platform (the X-Client-Version header''s name): min_version: older builds get 426 '
    'upgrade_required on every route but GET /config, /health, account deletion and export; latest_version: '
    'the newest build in the store (GET /config, for a gentle "update available"); store_url: where to update. '
    'A platform without a row has no minimum.';
insert into app.client_platforms (platform, min_version, latest_version, store_url) values
    ('ios', '1.0.0', '1.0.0', 'https://apps.apple.com/app/focus-island/id6478210453'),
    ('android', '1.0.0', '1.0.0', 'https://play.google.com/store/apps/details?id=app.focusisland');

create table app.release_settings (
    singleton            boolean primary key default true check (singleton),
    maintenance          boolean not null default false,
    maintenance_message  text not null default 'Focus Island is being updated and will be back shortly.'
                         check (length(maintenance_message) between 1 and 500),
    retry_after_seconds  integer not null default 300 check (retry_after_seconds between 1 and 86400),
    -- Flags the app branches on: names in snake_case, values true or false.
    feature_flags        jsonb not null default '{}'
                         check (jsonb_typeof(feature_flags) = 'object' and length(feature_flags::text) <= 4000
                                and not jsonb_path_exists(feature_flags, '$.keyvalue() ? (!(@.key like_regex "^[a-z][a-z0-9_]{0,39}$") || @.value.type() != "boolean")'))
);
comment on table app.release_settings is
    'maintenance: every route but GET /config, /health, account deletion and export answers 503 maintenance '
    'with maintenance_message and Retry-After: retry_after_seconds; feature_flags: {name: boolean} served '
    'by GET /config.';
insert into app.release_settings default values;

-- config.changed joins the broadcast events (user_id null); the lists name every type.
alter table app.events drop constraint events_type_check;
alter table app.events add constraint events_type_check check (type in (
    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
    'friend.removed', 'friend.updated', 'balance.changed',
    'catalog.changed', 'tips.changed', 'config.changed'));
alter table app.events drop constraint events_check;
alter table app.events add constraint events_check
    check ((user_id is null) = (type in ('catalog.changed', 'tips.changed', 'config.changed')));

create trigger client_platforms_config_changed
after insert or update or delete on app.client_platforms
for each statement execute function app.announce_config();
create trigger release_settings_config_changed
after insert or update or delete on app.release_settings
for each statement execute function app.announce_config();
create trigger economy_settings_config_changed
after insert or update or delete on app.economy_settings
for each statement execute function app.announce_config();
