# shellcheck shell=bash disable=SC2154 # dir and server are set by scripts/test, base_url by common.sh
# event-checks.sh: live events against the real binary and the test cluster (sourced by
# scripts/test, which has started the cluster in $dir and built $server).
#   1. PostgreSQL restarted while a user holds GET /events open: every event committed before
#      and after the restart arrives on that stream (the listener reconnects and wakes it, and
#      it re-reads from its cursor) or on its reconnect with Last-Event-ID: each once, in the
#      table's order, nothing lost;
#   2. the catalog changed in the database, then re-seeded back: after each, GET /shop/items
#      shows a new ETag within one notification (here: within 1 s); the old tag answers 200,
#      the new one 304 (from the server's memory);
#   3. streams that writer threads hold count toward PER_IP_CONNECTION_LIMIT.

# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"

# stream_ids FILE: the event ids a curl'ed stream received, in order.
stream_ids() { sed -n 's/^id: //p' "$1" | xargs; }
# stream_open FILE...: every stream's answer has begun (its first line, "retry: ...", arrived).
stream_open() {
    local file
    for file in "$@"; do grep -q '^retry:' "$file" 2>/dev/null || return 1; done
}

event_checks() {
    say "event checks (the real server binary)"
    local user token owner_url
    owner_url=$(cluster_url "$dir" focus_owner)
    grant() { psql -X -q -At "$owner_url" -c "select app.grant_coins('$user', $1, 'event check')" >/dev/null; }
    table_ids() {
        psql -X -At "$owner_url" -c "select string_agg(id::text, ' ' order by id) from app.events where user_id = '$user'"
    }

    # 1. A restart under an open stream.
    serve_in_background "$(server_log events)"
    read -r user token <<<"$(new_account)"
    local stream="$dir/stream.out"
    curl -sN --max-time 30 "$base_url/events" -H 'Accept: text/event-stream' -H "Authorization: Bearer $token" >"$stream" &
    local stream_pid=$!
    poll 10000 stream_open "$stream" || { check "GET /events did not answer" FAILED; server_stop; return 1; }
    grant 1
    cluster_restart "$dir"
    grant 2
    local started expected got=""
    expected=$(table_ids)
    started=$(now_ms)
    # The listener retries its connection at least once a second; allow for a slow restart.
    while [ $(( $(now_ms) - started )) -lt 10000 ]; do
        got=$(stream_ids "$stream")
        [ "$got" = "$expected" ] && break
        if ! kill -0 "$stream_pid" 2>/dev/null; then
            # The stream ended: reconnect from the last id it delivered, as a phone does.
            local last
            last=$(stream_ids "$stream" | awk '{ print $NF }')
            curl -sN --max-time 30 "$base_url/events" -H 'Accept: text/event-stream' \
                -H "Authorization: Bearer $token" ${last:+-H "Last-Event-ID: $last"} >>"$stream" &
            stream_pid=$!
        fi
        sleep 0.1
    done
    kill "$stream_pid" 2>/dev/null || true
    wait "$stream_pid" 2>/dev/null || true
    if [ -n "$expected" ] && [ "$got" = "$expected" ]; then
        check "PostgreSQL restarted under a stream: events $got delivered once, in order, in $(( $(now_ms) - started )) ms" ok
    else
        check "PostgreSQL restarted under a stream: table has '$expected', stream got '$got'" FAILED
        tail -n 5 "$(server_log events)"; server_stop; return 1
    fi

    # 2. The catalog changes, then a re-seed puts it back; the server's copy follows each time.
    etag() { curl -s -D - -o /dev/null "$base_url/shop/items" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p'; }
    status_with() { curl -s -o /dev/null -w '%{http_code}' "$base_url/shop/items" -H "If-None-Match: $1"; }
    # next_etag OLD: waits up to 1 s for an ETag other than OLD; prints it and the ms it took.
    next_etag() {
        local started new=""
        started=$(now_ms)
        while [ $(( $(now_ms) - started )) -lt 1000 ]; do
            new=$(etag)
            [ "$new" != "$1" ] && break
            sleep 0.01
        done
        printf '%s %s\n' "$new" $(( $(now_ms) - started ))
    }
    local old cached changed took reseeded took2
    old=$(etag)
    cached=$(status_with "$old")
    psql -X -q "$owner_url" -c "update app.shop_items set price = price + 1 where kind = 'furniture' and name = 'Oak Desk'"
    read -r changed took <<<"$(next_etag "$old")"
    local old_status new_status
    old_status=$(status_with "$old") new_status=$(status_with "$changed")
    "$server" seed >/dev/null
    read -r reseeded took2 <<<"$(next_etag "$changed")"
    if [ "$cached" = 304 ] && [ "$changed" != "$old" ] && [ "$old_status" = 200 ] && [ "$new_status" = 304 ] \
       && [ -n "$reseeded" ] && [ "$reseeded" != "$changed" ] && [ "$(status_with "$reseeded")" = 304 ]; then
        check "catalog changed: ETag $old → $changed in ${took} ms (old tag 200, new 304); re-seeded: $reseeded in ${took2} ms" ok
    else
        check "catalog: '$old' → '$changed' (${took} ms; 304 before: $cached; old $old_status, new $new_status) → re-seed '$reseeded'" FAILED
        server_stop; return 1
    fi
    server_stop

    # 3. Streams held by the writer threads (Live/StreamWriters.swift) are no longer
    #    libmicrohttpd's connections, yet they still count toward PER_IP_CONNECTION_LIMIT:
    #    an address holding that many streams is refused a further connection, and is served
    #    again once one of them closes.
    serve_in_background "$(server_log streams)" PER_IP_CONNECTION_LIMIT=2
    read -r user token <<<"$(new_account)"
    local streams=() n
    for n in 1 2; do
        curl -sN --max-time 30 "$base_url/events" -H 'Accept: text/event-stream' -H "Authorization: Bearer $token" \
            >"$dir/stream-$n.out" 2>/dev/null &
        streams+=($!)
    done
    # Both streams answered, so both are held by the writer threads.
    poll 10000 stream_open "$dir/stream-1.out" "$dir/stream-2.out" || true
    health() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$base_url/health" || true; }
    local full freed=""
    full=$(health)
    kill "${streams[0]}" 2>/dev/null || true
    wait "${streams[0]}" 2>/dev/null || true
    # The server notices the closed stream at its next write or heartbeat: served again by then.
    # shellcheck disable=SC2317 # called by poll
    freed_200() { freed=$(health); [ "$freed" = 200 ]; }
    poll 10000 freed_200 || true
    kill "${streams[1]}" 2>/dev/null || true
    wait "${streams[1]}" 2>/dev/null || true
    server_stop
    if [ "$full" = 000 ] && [ "$freed" = 200 ]; then
        check "2 streams from one address at PER_IP_CONNECTION_LIMIT=2: a 3rd connection refused; one closed: 200" ok
    else
        check "streams at the per-address limit: 3rd connection '$full' (want refused), after one closed '$freed'" FAILED
        return 1
    fi
}
