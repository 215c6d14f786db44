# fault-checks.sh: what the server does when things go wrong, checked against the real binary
# and the test cluster (sourced by scripts/test and scripts/chaos, which have started the
# cluster in $dir and built $server). Each check prints one line with what it measured; any failure exits.
#   1. SIGTERM while a slow request waits for the database, suspended (DB_ASYNC=on, the case
#      that once aborted libmicrohttpd with exit 134): during DRAIN_DELAY /ready answers 503
#      draining and /health 200, then new connections are refused, the request completes
#      normally, the process exits 0; and with the request held past STOP_GRACE, it answers 503
#      shutting_down with Retry-After and the process still exits 0, within STOP_GRACE and a second;
#   2. PostgreSQL stopped under a running server: 503 database_unavailable with Retry-After
#      (never a 500, never a hang); started again: requests answer normally within 2 s, with no
#      server restart, and a burst right after meets no stale pooled connection;
#   3. every pooled connection held by a slow statement: the next request answers 503 after
#      DB_POOL_TIMEOUT instead of waiting forever;
#   4. a statement running into statement_timeout: 503 timeout with Retry-After, never a 500;
#   5. PostgreSQL crashing under load (`pg_ctl stop -m immediate`, then kill -9 of the
#      postmaster): no 500 and no hang while it is down, served again soon after it is back, a
#      burst right after meets no stale connection, and the ledger reconciles;
#   6. max_connections exhausted by another client: 503 with Retry-After, then served again;
#   7. the bad-input set (Tests/system/chaos.py): no 5xx, problem+json wherever the server answers;
#   8. a request head trickled a byte at a time is cut at HEAD_TIMEOUT with 408 problem+json,
#      and at CONNECTION_LIMIT a new client is refused at once, not left hanging.
# Checks 5 to 8 are also the fast half of scripts/chaos, which adds the long scenarios.
# A "slow request" is a real one: PATCH /me waiting for the user's row, which a psql session
# holds locked until the check releases it (well within focus_api's 5 s statement_timeout).
# shellcheck shell=bash disable=SC2154 # dir and server are set by the caller (scripts/test, scripts/chaos); server_pid and base_url by common.sh

# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"

# hold_user_row USER_ID: a psql session locks the user's row, in the background (holder_pid),
# until release_user_row; returns once the lock is held. Held until released rather than for a
# fixed time, so a slow machine cannot let the lock go before the requests queue behind it.
hold_user_row() {
    psql -X -q "$(cluster_url "$dir" focus_owner)" \
        -c "begin; select from app.users where id = '$1' for update; select pg_sleep(60); commit;" >/dev/null 2>&1 &
    holder_pid=$!
    for _ in $(seq 200); do
        [ "$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from pg_stat_activity where query like '%pg_sleep(60)%' and state = 'active' and pid <> pg_backend_pid()")" = 1 ] && return 0
        sleep 0.05
    done
    die "could not lock the user's row"
}

# release_user_row: cancels the holder's sleep, which ends its transaction and frees the row.
release_user_row() {
    psql -X -At "$(cluster_url "$dir" postgres)" \
        -c "select pg_cancel_backend(pid) from pg_stat_activity where query like '%pg_sleep(60)%' and pid <> pg_backend_pid()" >/dev/null
    wait "$holder_pid" 2>/dev/null || true
}

# waiting_for_lock N (as the superuser, who sees every session's wait): returns once N backends of focus_api wait on a lock (the slow requests).
waiting_for_lock() {
    for _ in $(seq 200); do
        [ "$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from pg_stat_activity where usename = 'focus_api' and wait_event_type = 'Lock'")" -ge "$1" ] && return 0
        sleep 0.05
    done
    die "the slow requests never reached the database"
}

# fault_check_sigterm: SIGTERM while a request waits for a row lock, suspended for the database;
# DRAIN_DELAY=1 leaves a second to ask /ready and /health before the listener closes.
fault_check_sigterm() {
    local user token started
    serve_in_background "$(server_log sigterm)" DRAIN_DELAY=1 STOP_GRACE=5
    read -r user token <<<"$(new_account)"
    hold_user_row "$user"
    http PATCH /me "$token" '{"display_name":"Slow"}' >"$dir/slow.out" &
    local slow_pid=$!
    waiting_for_lock 1
    started=$(now_ms)
    kill -TERM "$server_pid"
    local ready=no health refused=no
    # shellcheck disable=SC2317 # called by poll
    draining() { [ "$(http GET /ready | cut -d' ' -f1-2)" = "503 draining" ]; }
    poll 900 draining && ready=yes
    health=$(http_status GET /health)
    # Then the listener closes; the held request stays in flight.
    # shellcheck disable=SC2317 # called by poll
    refusing() { ! curl -s --max-time 2 "$base_url/health" >/dev/null 2>&1; }
    poll 5000 refusing && refused=yes
    # Half a second past the listener's close with the request still held (a span the scenario
    # lasts, not a wait for something): the server must wait for it rather than cut it.
    sleep 0.5
    release_user_row
    wait "$slow_pid"
    local exit_status=0
    wait "$server_pid" || exit_status=$?
    local took=$(( $(now_ms) - started ))
    local slow
    slow=$(cut -d' ' -f1 "$dir/slow.out")
    if [ "$slow" = 200 ] && [ "$ready" = yes ] && [ "$health" = 200 ] && [ "$refused" = yes ] \
        && [ "$exit_status" = 0 ] && [ "$took" -lt 10000 ] && grep -q "stopped: drained in" "$(server_log sigterm)"; then
        check "SIGTERM: /ready 503 draining, /health 200, suspended request answered $slow, then refused, exit 0 in ${took} ms" ok
    else
        check "SIGTERM: slow request $slow, draining=$ready, health $health, refused=$refused, exit $exit_status after ${took} ms" FAILED
        tail -n 5 "$(server_log sigterm)"; return 1
    fi
}

# fault_check_sigterm_past_grace: SIGTERM while a request waits for a row lock held past
# STOP_GRACE (a database that hangs): the request answers 503 shutting_down, the exit is 0.
fault_check_sigterm_past_grace() {
    local user token started
    serve_in_background "$(server_log grace)" STOP_GRACE=1
    read -r user token <<<"$(new_account)"
    hold_user_row "$user"
    http PATCH /me "$token" '{"display_name":"Held"}' >"$dir/held.out" &
    local held_pid=$!
    waiting_for_lock 1
    started=$(now_ms)
    kill -TERM "$server_pid"
    wait "$held_pid"
    local exit_status=0
    wait "$server_pid" || exit_status=$?
    local took=$(( $(now_ms) - started ))
    release_user_row
    local held
    held=$(cat "$dir/held.out")
    if [ "$held" = "503 shutting_down 1" ] && [ "$exit_status" = 0 ] && [ "$took" -lt 3000 ] \
        && grep -q "1 answered 503 after STOP_GRACE" "$(server_log grace)"; then
        check "SIGTERM, database held past STOP_GRACE=1: request answered '$held', exit 0 in ${took} ms" ok
    else
        check "SIGTERM past STOP_GRACE=1: request '$held', exit $exit_status after ${took} ms" FAILED
        tail -n 5 "$(server_log grace)"; return 1
    fi
}

fault_checks() {
    say "fault checks (the real server binary)"
    fault_checks_basic
    fault_checks_crashes
    fault_checks_hostile_clients
}

fault_checks_basic() {
    local user token started

    # 1. SIGTERM with a request in flight, and with one held past STOP_GRACE.
    fault_check_sigterm || return 1
    fault_check_sigterm_past_grace || return 1

    # 2. PostgreSQL stopped and started under a running server.
    serve_in_background "$(server_log restart)"
    read -r user token <<<"$(new_account)"
    # Warm every pooled connection, so stale ones would be there to meet after the restart.
    local warming=()
    for _ in $(seq 16); do http_status GET /me "$token" >/dev/null & warming+=($!); done
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
        status=$(http_status GET /me "$token")
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
    burst=$(for _ in $(seq 32); do http_status GET /me "$token" & done | sort | uniq -c | xargs)
    if [ "$burst" = "32 200" ]; then
        check "a burst of 32 right after recovery: all 200 (no stale pooled connection)" ok
    else
        check "a burst of 32 right after recovery: $burst" FAILED; return 1
    fi
    server_stop

    # 3. Every pooled connection held by a slow statement.
    serve_in_background "$(server_log pool)" DB_POOL_SIZE=2 DB_POOL_TIMEOUT=1
    read -r user token <<<"$(new_account)"
    hold_user_row "$user"
    # One after the other: each HTTP worker answers one request at a time, and a worker blocked in
    # the database accepts no connection, so the second is taken by another worker. Sent
    # together, both could be accepted by one worker, the second waiting behind the first.
    http PATCH /me "$token" '{"display_name":"Slow 1"}' >"$dir/slow1.out" &
    local first=$!
    waiting_for_lock 1
    http PATCH /me "$token" '{"display_name":"Slow 2"}' >"$dir/slow2.out" &
    local second=$!
    waiting_for_lock 2
    started=$(now_ms)
    local busy
    busy=$(http GET /me "$token")
    took=$(( $(now_ms) - started ))
    release_user_row
    wait "$first" "$second" || true
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

# The ledger reconciles: no user whose balance differs from the sum of their ledger rows.
ledger_reconciles() {
    [ "$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from report.ledger_reconciliation")" = 0 ]
}

# load_start N: N clients buying shop items and reading /me in a loop (each its own account
# with plenty of coins), writing one status per line to $dir/load.out until load_stop.
load_start() {
    local owner_url items
    owner_url=$(cluster_url "$dir" focus_owner)
    items=$(psql -X -At "$owner_url" -c "select string_agg(id::text, ' ' order by random()) from app.shop_items where price > 0 and active")
    : >"$dir/load.out"
    load_pids=()
    local user token
    for _ in $(seq "$1"); do
        read -r user token <<<"$(new_account)"
        psql -X -q "$owner_url" -c "select app.grant_coins('$user', 100000, 'fault check load')" >/dev/null
        (
            while [ ! -f "$dir/load.stop" ]; do
                for item in $items; do
                    [ -f "$dir/load.stop" ] && break
                    http_status POST /shop/purchases "$token" "{\"item_id\":\"$item\"}" >>"$dir/load.out"
                    http_status GET /me "$token" >>"$dir/load.out"
                done
            done
        ) &
        load_pids+=($!)
    done
    rm -f "$dir/load.stop"
}

# load_answered N: the load clients have had N answers in all.
load_answered() { [ "$(wc -l <"$dir/load.out")" -ge "$1" ]; }

# load_stop: stops the clients; prints "N requests: COUNT STATUS, ..." and fails on 5xx other than 503, or on no answer.
load_stop() {
    touch "$dir/load.stop"
    wait "${load_pids[@]}" 2>/dev/null || true
    rm -f "$dir/load.stop"
    load_summary=$(sort "$dir/load.out" | uniq -c | awk '{printf "%s%s x %s", (NR > 1 ? ", " : ""), $1, $2}')
    load_total=$(wc -l <"$dir/load.out")
    ! grep -qvE '^(200|201|503)$' "$dir/load.out"
}

# wait_for_200 TOKEN: polls GET /me until it answers 200 (10 s at most); sets recovery (ms).
wait_for_200() {
    local started status=""
    started=$(now_ms)
    while [ $(( $(now_ms) - started )) -lt 10000 ]; do
        status=$(http_status GET /me "$1")
        [ "$status" = 200 ] && break
        sleep 0.05
    done
    recovery=$(( $(now_ms) - started ))
    [ "$status" = 200 ]
}

# start_after_crash [PID]: starts the cluster again once the killed postmaster PID is reaped
# (until then pg_ctl takes it for a running server) and its backends have gone (they exit on
# their own when they notice; until then the shared memory is still in use).
start_after_crash() {
    local _
    if [ -n "${1:-}" ]; then
        for _ in $(seq 100); do [ -d "/proc/$1" ] || break; sleep 0.05; done
    fi
    for _ in $(seq 50); do
        ( cluster_start "$dir" ) >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    die "PostgreSQL did not start again after the crash"
}

# crash_under_load NAME: crashes PostgreSQL (NAME: immediate or kill9) while 4 clients buy
# and read; checks the answers while it is down, the recovery, a burst after, and the ledger.
crash_under_load() {
    local how=$1 user token down burst postmaster=""
    serve_in_background "$(server_log "crash-$how")"
    read -r user token <<<"$(new_account)"
    load_start 4
    # Under load: the clients have had answers (8 in all).
    poll 10000 load_answered 8 || die "the load clients got no answers"
    case $how in
        immediate) as_cluster_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 ;;
        kill9) postmaster=$(head -n 1 "$dir/data/postmaster.pid"); kill -9 "$postmaster" ;;
    esac
    # Down for the server too: its pooled sessions' backends have gone (after kill -9 they exit
    # when they notice the postmaster's death), so GET /me no longer answers 200.
    # shellcheck disable=SC2317 # called by poll
    not_200() { down=$(http GET /me "$token"); [ "${down%% *}" != 200 ]; }
    poll 10000 not_200 || true
    start_after_crash "$postmaster"
    local ok=yes answered
    wait_for_200 "$token" || ok=no
    # The load runs on after recovery until the clients have had 8 answers more.
    answered=$(wc -l <"$dir/load.out")
    poll 10000 load_answered $((answered + 8)) || ok=no
    load_stop || ok=no
    burst=$(for _ in $(seq 32); do http_status GET /me "$token" & done | sort | uniq -c | xargs)
    [ "$burst" = "32 200" ] || ok=no
    ledger_reconciles || ok=no
    case $down in 503\ database_unavailable\ ?*) ;; *) ok=no ;; esac
    local label="crash ($how) under load: down '$down'; first 200 ${recovery} ms after it was up; load $load_total: $load_summary; burst $burst; ledger reconciles"
    if [ "$ok" = yes ] && [ "$recovery" -lt 5000 ]; then
        check "$label" ok
    else
        check "$label" FAILED
        tail -n 5 "$(server_log "crash-$how")"; return 1
    fi
    server_stop
}

fault_checks_crashes() {
    local user token started took answer
    # 4. A statement past statement_timeout (0.5 s on this server's sessions).
    # The account is made first, on a server without the short timeout: registering (a password
    # hash) may itself take longer than 0.5 s on a loaded machine.
    serve_in_background "$(server_log timeout)"
    read -r user token <<<"$(new_account)"
    server_stop
    serve_in_background "$(server_log timeout)" DATABASE_URL="$DATABASE_URL&options=-c%20statement_timeout%3D500"
    hold_user_row "$user"
    started=$(now_ms)
    read -r -a answer <<<"$(http PATCH /me "$token" '{"display_name":"Late"}')"
    took=$(( $(now_ms) - started ))
    release_user_row
    if [ "${answer[0]}" = 503 ] && [ "${answer[1]}" = timeout ] && [ -n "${answer[2]:-}" ]; then
        check "statement_timeout (0.5 s): 503 timeout, Retry-After: ${answer[2]}, after ${took} ms" ok
    else
        check "statement_timeout (0.5 s): answered '${answer[*]}' after ${took} ms" FAILED; return 1
    fi
    server_stop

    # 5. PostgreSQL crashing under load.
    crash_under_load immediate
    crash_under_load kill9

    # 6. max_connections exhausted by another client (as the superuser, it may take every slot
    # but one; focus_api may not use the reserved ones), on a server whose pool is still empty.
    serve_in_background "$(server_log max-connections)"
    read -r user token <<<"$(new_account)"
    server_stop
    serve_in_background "$(server_log max-connections)"
    local used hog
    used=$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from pg_stat_activity where backend_type = 'client backend'")
    hog=$(( $(psql -X -At "$(cluster_url "$dir" postgres)" -c "show max_connections") - used - 2 ))
    printf 'select pg_sleep(3);\n' >"$dir/sleep.sql"
    pgbench -n -h "$dir" -p "$PG_PORT" -U postgres -c "$hog" -j 4 -t 1 -f "$dir/sleep.sql" focus_island >"$dir/pgbench.log" 2>&1 &
    local hog_pid=$!
    for _ in $(seq 100); do
        [ "$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from pg_stat_activity where query like 'select pg_sleep(3)%'")" -ge "$hog" ] && break
        sleep 0.05
    done
    read -r -a answer <<<"$(http GET /me "$token")"
    wait "$hog_pid" || true
    local ok=no
    wait_for_200 "$token" && [ "${answer[0]}" = 503 ] && [ -n "${answer[2]:-}" ] && ok=yes
    check "max_connections taken by another client ($hog sessions): ${answer[0]} ${answer[1]:-} (Retry-After: ${answer[2]:-none}); 200 ${recovery} ms after it let go" \
        "$([ $ok = yes ] && echo ok || echo FAILED)"
    [ $ok = yes ] || return 1
    server_stop
}

# chaos_check ARGS...: one check line from Tests/system/chaos.py (its last line, verdict apart).
chaos_check() {
    local output status=0
    output=$(python3 "$ROOT/Tests/system/chaos.py" "$@") || status=$?
    [ "$status" = 0 ] || printf '%s\n' "$output" | grep FAILED >&2 || true
    check "$(printf '%s\n' "$output" | tail -n 1 | sed 's/ \(ok\|FAILED\)$//' | xargs -0 | sed 's/^ *//')" \
        "$([ "$status" = 0 ] && echo ok || echo FAILED)"
    return "$status"
}

fault_checks_hostile_clients() {
    local user token
    # 7. The bad-input set.
    serve_in_background "$(server_log bad-input)"
    read -r user token <<<"$(new_account)"
    chaos_check badinput "$base_url" "$token" || return 1
    server_stop

    # 8. Slowloris: the head deadline, and a full server refusing at once.
    serve_in_background "$(server_log slowloris)" HEAD_TIMEOUT=1 CONNECTION_LIMIT=8
    chaos_check deadline "$base_url" 1 || return 1
    chaos_check full "$base_url" 8 1 3 || return 1
    server_stop
}
