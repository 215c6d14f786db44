# fault-checks.sh: what the server does when things go wrong, checked against the real binary
# and the test cluster (sourced by scripts/test, which has started the cluster in $dir and built
# $server). Each check prints one line with what it measured; any failure exits.
#   1. SIGTERM while a slow request is in flight: the request completes normally, new
#      connections are refused, the process exits 0 within its grace period;
#   2. PostgreSQL stopped under a running server: 503 database_unavailable with Retry-After
#      (never a 500, never a hang); started again: requests answer normally within 2 s, with no
#      server restart, and a burst right after meets no stale pooled connection;
#   3. every pooled connection held by a slow statement: the next request answers 503 after
#      DB_POOL_TIMEOUT instead of waiting forever.
# A "slow request" is a real one: PATCH /me waiting for the user's row, which a psql session
# holds locked for a few seconds (below focus_api's 5 s statement_timeout).
# shellcheck shell=bash disable=SC2154 # dir, server, server_pid and base_url are set by scripts/test and common.sh

fault_log() { printf '%s/fault-%s.log' "$dir" "$1"; }

# http METHOD PATH [TOKEN [BODY]]: prints "STATUS CODE RETRY_AFTER" of one request (10 s at most).
http() {
    local headers body
    headers=$(mktemp "$dir/headers.XXXXXX") body=$(mktemp "$dir/body.XXXXXX")
    local status
    status=$(curl -s -o "$body" -D "$headers" -w '%{http_code}' --max-time 10 -X "$1" "$base_url$2" \
        ${3:+-H "Authorization: Bearer $3"} ${4:+-H 'Content-Type: application/json' --data "$4"}) || status=000
    printf '%s %s %s\n' "$status" \
        "$(sed -n 's/.*"code":"\([a-z_]*\)".*/\1/p' "$body")" \
        "$(tr -d '\r' <"$headers" | sed -n 's/^[Rr]etry-[Aa]fter: *//p')"
    rm -f "$headers" "$body"
}

# A new account over HTTP; prints "USER_ID TOKEN".
new_account() {
    curl -sf -X POST "$base_url/auth/register" -H 'Content-Type: application/json' \
        -d "{\"email\":\"fault-$RANDOM$RANDOM@example.com\",\"password\":\"correct horse\",\"display_name\":\"Fault\"}" \
        | sed -n 's/.*"user": {"id": "\([^"]*\)".*"token": "\([^"]*\)".*/\1 \2/p'
}

# hold_user_row USER_ID SECONDS: a psql session locks the user's row for SECONDS, in the background
# (holder_pid); returns once the lock is held.
hold_user_row() {
    local owner_url
    owner_url=$(cluster_url "$dir" focus_owner)
    psql -X -q "$owner_url" -c "begin; select from app.users where id = '$1' for update; select pg_sleep($2); commit;" \
        >/dev/null 2>&1 &
    holder_pid=$!
    for _ in $(seq 100); do
        [ "$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from pg_stat_activity where query like '%pg_sleep($2)%' and state = 'active' and pid <> pg_backend_pid()")" = 1 ] && return 0
        sleep 0.05
    done
    die "could not lock the user's row"
}

# waiting_for_lock N (as the superuser, who sees every session's wait): returns once N backends of focus_api wait on a lock (the slow requests).
waiting_for_lock() {
    for _ in $(seq 100); do
        [ "$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from pg_stat_activity where usename = 'focus_api' and wait_event_type = 'Lock'")" -ge "$1" ] && return 0
        sleep 0.05
    done
    die "the slow requests never reached the database"
}

now_ms() { date +%s%3N; }

fault_checks() {
    say "fault checks (the real server binary)"
    local user token started

    # 1. SIGTERM with a request in flight.
    serve_in_background "$(fault_log sigterm)"
    read -r user token <<<"$(new_account)"
    hold_user_row "$user" 2
    http PATCH /me "$token" '{"display_name":"Slow"}' >"$dir/slow.out" &
    local slow_pid=$!
    waiting_for_lock 1
    started=$(now_ms)
    kill -TERM "$server_pid"
    sleep 0.2
    local refused=no
    curl -s --max-time 2 "$base_url/health" >/dev/null 2>&1 || refused=yes
    wait "$slow_pid"
    local exit_status=0
    wait "$server_pid" || exit_status=$?
    local took=$(( $(now_ms) - started ))
    wait "$holder_pid" || true
    local slow
    slow=$(cut -d' ' -f1 "$dir/slow.out")
    if [ "$slow" = 200 ] && [ "$refused" = yes ] && [ "$exit_status" = 0 ] && [ "$took" -lt 10000 ]; then
        check "SIGTERM: slow request answered $slow, new connection refused, exit 0 in ${took} ms" ok
    else
        check "SIGTERM: slow request $slow, refused=$refused, exit $exit_status after ${took} ms" FAILED
        tail -n 5 "$(fault_log sigterm)"; return 1
    fi

    # 2. PostgreSQL stopped and started under a running server.
    serve_in_background "$(fault_log restart)"
    read -r user token <<<"$(new_account)"
    # Warm every pooled connection, so stale ones would be there to meet after the restart.
    local warming=()
    for _ in $(seq 16); do http GET /me "$token" >/dev/null & warming+=($!); done
    wait "${warming[@]}"
    cluster_stop "$dir"
    local down
    down=$(http GET /me "$token")
    read -r -a answer <<<"$down"
    if [ "${answer[0]}" = 503 ] && [ "${answer[1]}" = database_unavailable ] && [ -n "${answer[2]:-}" ]; then
        check "database stopped: 503 database_unavailable, Retry-After: ${answer[2]}" ok
    else
        check "database stopped: answered '$down'" FAILED; return 1
    fi
    cluster_start "$dir"
    started=$(now_ms)
    local status=""
    while [ $(( $(now_ms) - started )) -lt 5000 ]; do
        status=$(http GET /me "$token" | cut -d' ' -f1)
        [ "$status" = 200 ] && break
        sleep 0.05
    done
    local recovery=$(( $(now_ms) - started ))
    if [ "$status" = 200 ] && [ "$recovery" -lt 2000 ]; then
        check "database started again: first 200 after ${recovery} ms, no server restart" ok
    else
        check "database started again: $status after ${recovery} ms" FAILED; return 1
    fi
    local burst
    burst=$(for _ in $(seq 32); do http GET /me "$token" & done | cut -d' ' -f1 | sort | uniq -c | xargs)
    if [ "$burst" = "32 200" ]; then
        check "a burst of 32 right after recovery: all 200 (no stale pooled connection)" ok
    else
        check "a burst of 32 right after recovery: $burst" FAILED; return 1
    fi
    server_stop

    # 3. Every pooled connection held by a slow statement.
    serve_in_background "$(fault_log pool)" DB_POOL_SIZE=2 DB_POOL_TIMEOUT=1
    read -r user token <<<"$(new_account)"
    hold_user_row "$user" 3
    http PATCH /me "$token" '{"display_name":"Slow 1"}' >"$dir/slow1.out" &
    local first=$!
    http PATCH /me "$token" '{"display_name":"Slow 2"}' >"$dir/slow2.out" &
    local second=$!
    waiting_for_lock 2
    started=$(now_ms)
    local busy
    busy=$(http GET /me "$token")
    took=$(( $(now_ms) - started ))
    wait "$first" "$second" "$holder_pid" || true
    read -r -a answer <<<"$busy"
    if [ "${answer[0]}" = 503 ] && [ "${answer[1]}" = busy ] && [ -n "${answer[2]:-}" ] && [ "$took" -ge 900 ] \
       && [ "$(cut -d' ' -f1 "$dir/slow1.out" "$dir/slow2.out" | xargs)" = "200 200" ]; then
        check "pool of 2 held: 503 busy after ${took} ms (DB_POOL_TIMEOUT=1), the held requests 200" ok
    else
        check "pool of 2 held: '$busy' after ${took} ms; held: $(cat "$dir/slow1.out" "$dir/slow2.out" | xargs)" FAILED
        return 1
    fi
    server_stop
}
