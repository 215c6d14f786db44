-- api config: GET /config, what an installed app reads before anything else: the release
-- controls (app.client_platforms, app.release_settings) and the economy and limits it shows
-- (app.economy_settings, app.avatar_max_bytes()), public and the same for everyone. The
-- server keeps this answer in memory (Live/SharedCache.swift) and admits requests by it
-- (Live/ReleaseControls.swift) until a config.changed event says it changed.

-- The API version GET /config names: docs/openapi.json's info.version (ConfigHTTPTests
-- compares them, so a release that moves one moves both).
create function api.api_version()
returns text
language sql immutable
as $$ select '1.1.0' $$;

-- Config = {api_version,
--           platforms: {<platform>: {min_version, latest_version, store_url}},
--           maintenance: {active, message, retry_after_seconds},
--           features: {<flag>: boolean},
--           economy: {coins_per_minute, min_minutes_to_earn, max_session_minutes,
--                     offline_daily_coin_cap, offline_max_age_days, clock_skew_seconds,
--                     streak_freeze_price, streak_freezes_max},
--           limits: {max_planned_minutes, batch_max_sessions, avatar_max_bytes, avatar_types}}
-- Guarantees: every value is read from its row at the time of the call; the ETag is a digest
-- of the body, so it moves exactly when an answer would differ.
-- Two session lengths (2026-12-01): `max_session_minutes` bounds what any session counts and
-- what a live plan may be (the row, 180 by default), for the live and the offline path alike;
-- `max_planned_minutes` (1,440, a day: the column's own bound) is only how large a plan an
-- offline record may *state*. A plan is a label there; the minutes counted are the real ones,
-- and a recorded session longer than max_session_minutes is 422 invalid_session.
create function api.config_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb;
begin
    select jsonb_build_object(
               'api_version', api.api_version(),
               'platforms', coalesce((select jsonb_object_agg(p.platform, jsonb_build_object(
                                                 'min_version', p.min_version, 'latest_version', p.latest_version,
                                                 'store_url', p.store_url))
                                      from app.client_platforms p), '{}'),
               'maintenance', jsonb_build_object('active', r.maintenance, 'message', r.maintenance_message,
                                                 'retry_after_seconds', r.retry_after_seconds),
               'features', r.feature_flags,
               'economy', jsonb_build_object(
                   'coins_per_minute', e.coins_per_minute, 'min_minutes_to_earn', e.min_minutes_to_earn,
                   'max_session_minutes', e.max_session_minutes, 'offline_daily_coin_cap', e.offline_daily_coin_cap,
                   'offline_max_age_days', floor(extract(epoch from e.offline_max_age) / 86400)::integer,
                   'clock_skew_seconds', floor(extract(epoch from e.clock_skew))::integer,
                   'streak_freeze_price', e.streak_freeze_price, 'streak_freezes_max', 2),
               'limits', jsonb_build_object(
                   'max_planned_minutes', 1440, 'batch_max_sessions', 100,
                   'avatar_max_bytes', app.avatar_max_bytes(), 'avatar_types', jsonb_build_array('image/png', 'image/jpeg')))
    into v_body
    from app.release_settings r cross join app.economy_settings e;
    return api.ok(v_body, etag => 'config-' || left(md5(v_body::text), 16));
end
$$;
grant execute on function api.config_get(text, jsonb, jsonb) to focus_api;
comment on function api.config_get(text, jsonb, jsonb) is
    'GET /config (public): app versions and store URLs per platform, maintenance, feature flags, the economy '
    'and limits, the API version; the ETag is a digest of the answer.';
insert into api.endpoints (method, path, function, access, admission)
values ('GET', '/config', 'api.config_get', 'public', 'always');
