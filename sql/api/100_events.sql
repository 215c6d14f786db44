-- api events: reading the outbox app.events (written by triggers, sql/migrations/0007_events.sql).
-- GET /events serves it as a stream (the server opens it with api.events_stream_open, then
-- fills it with api.events_list) or as JSON long-polls (api.events_list; the server waits).
-- A cursor is an event id: the phone resumes after the last id it saw. Event ids are shared by
-- all users, so a cursor says nothing about whose events lie below it. Readers see ids below
-- app.events_horizon() only (sql/app/020_events.sql): below it no event can still commit, so a
-- cursor never skips one that commits late.

-- The newest event id a reader may start after (pruning never moves it back): the newest below
-- the horizon; 0 before any event.
create function api.newest_event_id()
returns bigint
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select greatest(coalesce((select max(e.id) from app.events e where e.id < app.events_horizon()), 0),
                        (select s.pruned_through from app.event_settings s)));
end
$$;

-- The `after` parameter: a whole number from 0 to the newest id, given as a string; null when
-- absent. Anything else (malformed, negative, a future id) is 400 invalid_field.
create function api.event_cursor(params jsonb)
returns bigint
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_text text := event_cursor.params ->> 'after';
begin
    if v_text is null then
        return null;
    end if;
    if v_text !~ '^\d{1,19}$' or v_text::numeric > api.newest_event_id() then
        perform api.fail_field('after', 'must be an event id you were given: a whole number from 0 to the newest id.');
    end if;
    return v_text::bigint;
end
$$;

-- GET /events?after=&limit=&wait= as JSON.
-- Guarantees: the caller's events (but those the caller's own token caused, which its answer
-- said: events to one's own other devices) and the broadcast ones (catalog, tips) with id > after, in id
-- order, at most `limit` (1 to 1000, default 100); `next` is the last id answered, or `after`
-- when there is none. No `after`: nothing, and `next` = the newest id (start from now). An
-- `after` below what was pruned answers one {type: "resync"} event (id = next = the newest id):
-- refetch everything, then go on from there. `wait` (0 to 60) is checked here and waited by
-- the server. Only ids below app.events_horizon() are answered, so paging by `next` skips nothing
-- (0032_event_ids.sql): an event committed while an older writer still runs waits for it, and
-- api.events_ring tells the server when it may be read.
create function api.events_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(events_list.token);
    v_token uuid := app.acting_token();  -- the caller's token: what it did itself is not told back
    v_after bigint := api.event_cursor(events_list.params);
    v_limit integer := api.integer_param(events_list.params, 'limit', 1, 1000, 100);
    v_newest bigint;
    v_events jsonb;
    v_last bigint;
    v_horizon bigint;
begin
    perform api.integer_param(events_list.params, 'wait', 0, 60, 0);  -- checked here, waited by the server
    if v_after is null then
        return api.ok(jsonb_build_object('events', '[]'::jsonb, 'next', api.newest_event_id()));
    end if;
    if v_after < (select s.pruned_through from app.event_settings s) then
        v_newest := api.newest_event_id();
        return api.ok(jsonb_build_object('events', jsonb_build_array(jsonb_build_object(
                                             'id', v_newest, 'type', 'resync', 'data', '{}'::jsonb,
                                             'created_at', api.iso(now()))),
                                         'next', v_newest));
    end if;
    v_horizon := app.events_horizon();
    -- Event = {id, type, data, created_at}
    select jsonb_agg(jsonb_build_object('id', e.id, 'type', e.type, 'data', e.payload,
                                        'created_at', api.iso(e.created_at)) order by e.id), max(e.id) into v_events, v_last
    from ((select * from app.events e
           where e.user_id = v_user_id and e.id > v_after and e.id < v_horizon and e.origin_token is distinct from v_token
           order by e.id limit v_limit)
          union all
          (select * from app.events e where e.user_id is null and e.id > v_after and e.id < v_horizon order by e.id limit v_limit)
          order by id limit v_limit) e;
    return api.ok(jsonb_build_object('events', coalesce(v_events, '[]'), 'next', coalesce(v_last, v_after)));
end
$$;
grant execute on function api.events_list(text, jsonb, jsonb) to focus_api;
comment on function api.events_list(text, jsonb, jsonb) is
    'GET /events (JSON): the caller''s and broadcast events after `after` in id order, with `next`, but none the '
    'caller''s own token caused (those go to the person''s other devices); '
    'a pruned cursor answers one resync event; a malformed, negative or future `after`, a `limit` '
    'outside 1..1000 or a `wait` outside 0..60 is 400 invalid_field.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/events', 'api.events_list',
        '{account_suspended, invalid_field, too_many_polls, too_many_streams}');

-- Opening a GET /events stream or waiting long-poll: the same checks as api.events_list, and
-- what the server needs to hold it: whose it is, how many streams and waiting long-polls that
-- user may hold (the server counts them and refuses past it with 429 too_many_streams or
-- too_many_polls), the cursor to start after, and the seconds until the token expires (the
-- server asks again then, so a stream ends within a heartbeat of its token; a token ended
-- earlier rings the user's clients, 0018_names_and_token_ends.sql).
create function api.events_stream_open(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(events_stream_open.token);
    v_after bigint := api.event_cursor(events_stream_open.params);
begin
    -- The stream's later reads take these parameters: refuse bad ones before it opens.
    perform api.integer_param(events_stream_open.params, 'limit', 1, 1000, 100);
    perform api.integer_param(events_stream_open.params, 'wait', 0, 60, 0);
    return api.ok(jsonb_build_object(
        'user_id', v_user_id,
        'max_streams', (select s.max_streams_per_user from app.event_settings s),
        'max_polls', (select s.max_polls_per_user from app.event_settings s),
        'next', coalesce(v_after, api.newest_event_id()),
        'token_expires_in', (select ceil(extract(epoch from t.expires_at - now()))::bigint from app.auth_tokens t
                             where t.digest = sha256(convert_to(events_stream_open.token, 'UTF8')))));
end
$$;
grant execute on function api.events_stream_open(text, jsonb, jsonb) to focus_api;
comment on function api.events_stream_open(text, jsonb, jsonb) is
    'GET /events (stream, waiting long-poll): {user_id, max_streams, max_polls, next, token_expires_in} for a '
    'valid token and cursor; the same 401 and 400 invalid_field as api.events_list. Decides nothing else: the '
    'server counts the streams and long-polls.';

-- The doorbell for the server's listener (sql/migrations/0032_event_ids.sql): writers no longer
-- notify for each personal event (NOTIFY serialises the commits of every notifying transaction),
-- so each server process asks this every 10 ms, and at once after its own requests' writes, with
-- the `through` of its last answer (Sources/FocusIsland/Live/Listener.swift).
-- Guarantees: one row per user with an event in (after, horizon) (each user once, any order),
-- '*' once when a broadcast event lies there, and in every row (and in the one row with a null
-- user when there is none) `through`: the newest id below the horizon (at least `after`), the
-- next call's `after`; and `held`: whether a committed event lies at or above the horizon (it
-- waits for an older writer to end; the listener asks again sooner). No event below the horizon
-- can commit later, so asking from `through` misses none. A null `after` answers only `through`
-- (where a freshly connected listener starts).
-- One range read of the primary key's index over the new ids (their rows for the user ids),
-- and one probe of its highest entry for `held`. Its statements keep one generic plan: with
-- custom plans (the default) the range's estimate made PostgreSQL plan them again at every
-- call, two thirds of the call's time (docs/performance.md, "Streams: the doorbell").
create function api.events_ring(after bigint)
returns table (user_id text, through bigint, held boolean)
language plpgsql stable security definer set search_path = public, pg_temp set plan_cache_mode = force_generic_plan
as $$
declare
    v_horizon bigint := app.events_horizon();
    v_held boolean := coalesce((select max(e.id) from app.events e) >= v_horizon, false);
begin
    if events_ring.after is null then
        return query select null::text, api.newest_event_id(), v_held;
        return;
    end if;
    return query
        with rung as (
            select coalesce(e.user_id::text, '*') as user_id, max(e.id) as last from app.events e
            where e.id > events_ring.after and e.id < v_horizon
            group by 1
        )
        select r.user_id, (select max(n.last) from rung n), v_held from rung r
        union all
        select null::text, events_ring.after, v_held where not exists (select from rung);
end
$$;
grant execute on function api.events_ring(bigint) to focus_api;
comment on function api.events_ring(bigint) is
    'Not an endpoint: the server''s listener asks it every 10 ms and after its own writes; the users (and ''*'' '
    'for a broadcast) with events after `after` that have become readable, `through` (the next call''s `after`) '
    'and `held` (committed events still wait for an older writer).';

-- Every prune at once, in one transaction, for a DBA: deletes events older than the retention,
-- Idempotency-Keys past theirs (app.prune_idempotency_keys), and sign-in failures, sign-in
-- addresses and mail past theirs (app.prune_personal_data); returns the events deleted. The
-- server prunes in batches instead (the prune job, sql/api/140_jobs.sql).
create function api.events_prune()
returns integer
language sql volatile security definer set search_path = public, pg_temp
as $$
    select app.prune_idempotency_keys();
    select app.prune_personal_data();
    select app.prune_events()
$$;
grant execute on function api.events_prune() to focus_api;
comment on function api.events_prune() is
    'Not an endpoint: for a DBA (the server''s prune job deletes in batches: api.job_step); app.prune_events deletes events past the retention, '
    'app.prune_idempotency_keys Idempotency-Keys past theirs, app.prune_personal_data sign-in records and mail past theirs.';
