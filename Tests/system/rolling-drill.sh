# shellcheck shell=bash disable=SC2154 # dir, server, server_pid and base_url: scripts/chaos's and common.sh's
# rolling-drill.sh: the rolling deploy of scripts/chaos rolling. Two real servers behind the
# reference haproxy (deploy/haproxy/focus-island.cfg as it is, TLS with a CA made for the run)
# on the throwaway cluster in $dir, each restarted in turn under load: SIGTERM, its exit and
# status, started again on the same port, back in haproxy's rotation. The load is
# Tests/system/ha-drill.py's (rolling): reads, purchases with an Idempotency-Key and session
# uploads from DRILL_CLIENTS (8) clients on loopback addresses of their own, DRILL_STREAMS (4)
# event streams that resume with Last-Event-ID. One line per figure; returns 1 if any check
# failed. The last run's logs stay in .pgdata/rolling-last/.

# shellcheck source=proxy-checks.sh
source "$ROOT/Tests/system/proxy-checks.sh"

# DRAIN_DELAY for the checks of focus-island.cfg (inter 2s, fall 2): inter × fall + inter,
# docs/operations.md. haproxy takes a server out within 5 s (3 s, plus the 2 s check timeout).
# DRILL_DRAIN_DELAY tries another value (0: the listener closes at the signal).
ROLLING_DRAIN_DELAY=${DRILL_DRAIN_DELAY:-6}

drill_rolling() {
    local tool
    for tool in haproxy openssl curl; do
        command -v "$tool" >/dev/null || die "$tool is not installed; run scripts/setup"
    done
    # Not local: the EXIT trap reads them after this function has returned.
    work=$dir/rolling rolling_pids=() rolling_server_pids=() rolling_ports=()
    mkdir -p "$work"
    trap rolling_remove EXIT
    proxy_certificate "$work"

    local n
    for n in 1 2; do
        serve_in_background "$work/server$n-first.log" TRUSTED_PROXIES=127.0.0.1/32 DRAIN_DELAY="$ROLLING_DRAIN_DELAY"
        rolling_server_pids[n]=$server_pid rolling_ports[n]=${base_url##*:}
        rolling_pids+=("$server_pid")
    done
    server_pid=""  # both are this drill's to stop (rolling_remove), not throwaway_cluster_remove's

    local haproxy_port
    haproxy_port=$(free_port)
    env FOCUS_BIND="127.0.0.1:$haproxy_port" FOCUS_CERT="$work/haproxy.pem" FOCUS_HAPROXY_USER= \
        FOCUS_SERVER1="127.0.0.1:${rolling_ports[1]}" FOCUS_SERVER2="127.0.0.1:${rolling_ports[2]}" \
        haproxy -W -db -f "$ROOT/deploy/haproxy/focus-island.cfg" >"$work/haproxy.log" 2>&1 &
    rolling_pids+=($!)
    # shellcheck disable=SC2317 # called by poll
    ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --cacert "$work/ca.pem" "https://127.0.0.1:$haproxy_port/ready")" = 200 ]; }
    poll 10000 ready || { cat "$work/haproxy.log" >&2; check "haproxy did not answer /ready" FAILED; return 1; }
    say "rolling restart behind haproxy (TLS on :$haproxy_port): servers on :${rolling_ports[1]} and :${rolling_ports[2]}, DRAIN_DELAY=$ROLLING_DRAIN_DELAY, STOP_GRACE 10 s; ${DRILL_CLIENTS:-8} clients, ${DRILL_STREAMS:-4} event streams"

    local ok=yes drill_pid
    DRILL_CA_FILE="$work/ca.pem" python3 "$ROOT/Tests/system/ha-drill.py" rolling "https://127.0.0.1:$haproxy_port" \
        "$MIGRATION_DATABASE_URL" "${DRILL_CLIENTS:-8}" "${DRILL_STREAMS:-4}" "$work/load-running" "$work/haproxy.log" &
    drill_pid=$!
    rolling_pids+=("$drill_pid")
    # shellcheck disable=SC2317 # called by poll
    load_running() { [ -s "$work/load-running" ] || ! kill -0 "$drill_pid" 2>/dev/null; }
    poll 120000 load_running || true
    [ -s "$work/load-running" ] || { check "the load did not start" FAILED; return 1; }
    rolling_restart 1 || ok=no
    rolling_restart 2 || ok=no
    kill -USR1 "$drill_pid"
    wait "$drill_pid" || ok=no
    [ "$ok" = yes ]
}

# rolling_restart N: server N restarted as a deploy does (systemctl restart): SIGTERM; haproxy
# takes it out (its /ready answers 503) before its listener closes; it exits 0; it starts again
# on the same port, and the drill goes on once haproxy has it back in rotation.
rolling_restart() {
    local n=$1 pid=${rolling_server_pids[$1]} port=${rolling_ports[$1]} ok=yes
    local log=$work/haproxy.log old_log=$work/server$1-first.log new_log=$work/server$1-restarted.log
    local downs ups started out_ms=never exit_ms=never status up_ms=never
    downs=$(grep -c "Server focus_servers/s$n is DOWN" "$log" || true)
    ups=$(grep -c "Server focus_servers/s$n is UP" "$log" || true)
    # shellcheck disable=SC2317 # called by poll
    logged_more() { [ "$(grep -c "$1" "$log" || true)" -gt "$2" ]; }
    # shellcheck disable=SC2317 # called by poll
    exited() { [ ! -d "/proc/$1" ] || grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }  # gone, or a zombie
    # shellcheck disable=SC2317 # called by poll
    stop_seen() {  # notes when haproxy took it out and when it exited, whichever comes first
        [ "$out_ms" != never ] || ! logged_more "Server focus_servers/s$n is DOWN" "$downs" || out_ms=$(( $(now_ms) - started ))
        [ "$exit_ms" != never ] || ! exited "$pid" || exit_ms=$(( $(now_ms) - started ))
        [ "$out_ms" != never ] && [ "$exit_ms" != never ]
    }
    started=$(now_ms)
    kill -TERM "$pid"
    # The stop's bound: DRAIN_DELAY + STOP_GRACE + 1 s, and a check's 2 s; past it, killed (a failure).
    poll $(( (ROLLING_DRAIN_DELAY + 10 + 1 + 2) * 1000 )) stop_seen || true
    [ "$exit_ms" != never ] || { kill -9 "$pid" 2>/dev/null || true; ok=no; }
    status=0
    wait "$pid" || status=$?
    [ "$status" = 0 ] || ok=no
    # Taken out before the listener closed: no new connection met a closed port.
    [ "$out_ms" != never ] && [ "$out_ms" -lt $(( ROLLING_DRAIN_DELAY * 1000 )) ] || ok=no
    check "server $n: SIGTERM; out of haproxy's rotation after $out_ms ms; exit $status after $exit_ms ms" \
        "$([ "$ok" = yes ] && echo ok || echo FAILED)"
    grep -E 'signal 15: draining|stop: listener closed|stopped: drained|still in flight|libmicrohttpd' "$old_log" |
        cut -c1-200 | sed 's/^/      /' || true

    serve_in_background "$new_log" TRUSTED_PROXIES=127.0.0.1/32 DRAIN_DELAY="$ROLLING_DRAIN_DELAY" PORT="$port"
    rolling_server_pids[n]=$server_pid
    rolling_pids+=("$server_pid")
    server_pid=""
    [ "${base_url##*:}" = "$port" ] || { check "server $n started again on :${base_url##*:}, not :$port" FAILED; return 1; }
    started=$(now_ms)
    if poll 30000 logged_more "Server focus_servers/s$n is UP" "$ups"; then up_ms=$(( $(now_ms) - started )); fi
    check "server $n: started again on :$port; back in haproxy's rotation after $up_ms ms" \
        "$([ "$up_ms" != never ] && echo ok || echo FAILED)"
    [ "$ok" = yes ] && [ "$up_ms" != never ]
}

rolling_remove() {
    local status=$? pid
    for pid in "${rolling_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${rolling_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    # The last run's logs outlive the cluster's folder.
    if [ -d "${work:-}" ]; then
        rm -rf "$ROOT/.pgdata/rolling-last" && mkdir -p "$ROOT/.pgdata/rolling-last"
        cp "$work"/*.log "$ROOT/.pgdata/rolling-last/" 2>/dev/null || true
    fi
    throwaway_cluster_remove
    return "$status"
}
