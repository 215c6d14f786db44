-- Release controls: what GET /config serves and what the server admits by (the minimum app
-- version per platform, maintenance). Bound in 0020_release_controls.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- An app version as the X-Client-Version header and app.client_platforms write it: one to
-- three dot-separated numbers of at most 5 digits each ("1", "1.3", "1.3.0"). Guarantees: the
-- key of a well-formed version is three integers (missing parts are 0, so "1.3" = "1.3.0"),
-- compared as arrays compare (1.10.0 > 1.9.9); null for anything else. The server's admission
-- check (Live/ReleaseControls.swift) reads versions by the same rule.
create or replace function app.client_version_key(version text)
returns integer[]
language sql immutable parallel safe
as $$
    select case when client_version_key.version ~ '^[0-9]{1,5}(\.[0-9]{1,5}){0,2}$'
                then (string_to_array(client_version_key.version, '.')::integer[] || array[0, 0])[1:3] end
$$;
comment on function app.client_version_key(text) is
    'The comparable key of an app version "M[.m[.p]]" (three integers, missing parts 0); null when malformed.';

-- config.changed: one broadcast event per statement that changed what GET /config serves
-- (platforms, release settings, the economy), so every server empties its shared cache and
-- its admission snapshot at once, and apps listening on GET /events fetch /config again.
-- Statement-level: a DBA's one `update` is one event, however many rows it touched.
create or replace function app.announce_config()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    insert into app.events (user_id, type, payload) values (null, 'config.changed', '{}');
    return null;
end
$$;
