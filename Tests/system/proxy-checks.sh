# shellcheck shell=bash disable=SC2154 # dir and server are set by scripts/test, base_url by common.sh
# proxy-checks.sh: the reference deployment's haproxy (deploy/haproxy/focus-island.cfg, this
# very file, its variables set) in front of two real servers on the test cluster, over TLS on
# loopback with a CA the check makes (sourced by scripts/test, which has started the cluster in
# $dir and built $server). 8 to 15 seconds.
#   1. over HTTP/2 and over HTTP/1.1 (ALPN, the negotiated version asserted): /health, a
#      sign-up, a purchase (201), and an event stream through haproxy that receives the
#      purchase's balance.changed;
#   2. a renewed certificate put in through the admin socket without a reload is served at
#      once; then a reload (SIGUSR2, as `systemctl reload haproxy`): no request refused, and a
#      stream opened before both still receives;
#   3. the phone's own address: one prober among 19 innocents from 20 addresses, then from one
#      (a NAT), then with a spoofed X-Forwarded-For straight to a server
#      (Tests/system/address-drill.py); and a sign-in through PROXY v2 recorded as the phone's;
#   4. what a server is told of the phone, seen by a stand-in server (Tests/system/proxy-peer.py):
#      a spoofed X-Forwarded-For arrives with haproxy's entry appended after it, a spoofed
#      Forwarded does not arrive; with FOCUS_PROXY_PROTOCOL, a PROXY v2 header with the
#      phone's address on every request's connection, a v2 LOCAL header (no address: the
#      proxy's own) on every health check's, and no X-Forwarded-For;
#   5. the admin socket (FOCUS_HAPROXY_STATS) drains a server: every request goes to the other,
#      and after `state ready` to both again;
#   6. a server killed with -9: idempotent requests sent right after all answer 200 (retry-on
#      and redispatch to the other), and haproxy marks it down by its /ready checks;
#   7. haproxy's own /metrics (FOCUS_HAPROXY_METRICS) answers;
#   8. deploy/prometheus/postgres-exporter.yml, run by Debian's prometheus-postgres-exporter as
#      focus_monitor against the test cluster: the file loads, every query answers, pg_up 1.
# Server 1 runs under PR_SET_MDWE (the kernel's refusal of writable and executable memory,
# what the systemd unit's MemoryDenyWriteExecute= asks), so the hardening is tried too.
# Everything it starts is stopped when it ends, whatever happens (the trap in the subshell).

# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"

proxy_checks() {
    say "proxy checks (deploy/haproxy/focus-island.cfg in front of two real servers, TLS on loopback)"
    local tool
    for tool in haproxy openssl prometheus-postgres-exporter; do
        command -v "$tool" >/dev/null || die "$tool is not installed; run scripts/setup"
    done
    # Debian's curl speaks HTTP/2 through nghttp2; one built without it would test HTTP/1.1 twice.
    curl -V | grep -qw HTTP2 || die "this curl has no HTTP/2 (Debian's has, through nghttp2)"
    # A subshell of its own: its EXIT trap stops what it started without replacing scripts/test's.
    # Not `|| die`: set -e does not act inside a command whose status is tested.
    (proxy_checks_run)
}

# free_port: a port nothing listens on now (haproxy cannot say which one it took for :0).
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# proxy_certificate WORK: a CA (WORK/ca.pem, its key ca-key.pem) and a certificate for localhost
# and 127.0.0.1 signed by it (its request cert.csr and key key.pem, kept for a renewal); haproxy
# reads one PEM with the certificate, then the key (deploy/: "Certificates"): WORK/haproxy.pem.
# The rolling drill (Tests/system/rolling-drill.sh) makes its own the same way.
proxy_certificate() {
    local work=$1
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=Focus Island test CA" \
        -keyout "$work/ca-key.pem" -out "$work/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
        -keyout "$work/key.pem" -out "$work/cert.csr" 2>/dev/null
    openssl x509 -req -in "$work/cert.csr" -CA "$work/ca.pem" -CAkey "$work/ca-key.pem" -CAcreateserial -days 1 \
        -extfile <(printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n') -out "$work/cert.pem" 2>/dev/null
    cat "$work/cert.pem" "$work/key.pem" >"$work/haproxy.pem"
}

proxy_checks_run() {
    # Not local: the EXIT trap runs after this function has returned, when the subshell ends.
    work=$dir/proxy pids=()
    rm -rf "$work" && mkdir -p "$work"
    # shellcheck disable=SC2317 # called by the trap
    proxy_stop_all() {
        local status=$? pid
        [ "$status" = 0 ] || printf 'error: the proxy checks failed (logs in %s)\n' "$work" >&2
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
        for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    }
    trap proxy_stop_all EXIT

    proxy_certificate "$work"

    # Server 1 under PR_SET_MDWE when the kernel has it (Linux 6.3 on), inherited across exec.
    local mdwe="not under PR_SET_MDWE (the kernel has none)" first=$server wrapper=$work/mdwe-focus-island
    printf '%s\n' '#!/usr/bin/env python3' 'import ctypes, os, sys' \
        'if ctypes.CDLL(None, use_errno=True).prctl(65, 1, 0, 0, 0) != 0: sys.exit("PR_SET_MDWE refused")' \
        "os.execv('$server', ['$server'] + sys.argv[1:])" >"$wrapper"
    chmod +x "$wrapper"
    if python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).prctl(65, 1, 0, 0, 0) != 0)'; then
        first=$wrapper mdwe="under PR_SET_MDWE"
    fi
    # The servers trust haproxy's address for X-Forwarded-For (TRUSTED_PROXIES) and take its
    # PROXY v2 headers on a second port (docs/operations.md, "The client's address").
    local server1_port server2_port server1_pid server2_pid server1_proxy server2_proxy
    # proxy_port LOG: the PROXY protocol port a server's log names.
    proxy_port() { sed -n 's/.*PROXY protocol v2 on [^ ]*:\([0-9]*\).*/\1/p' "$1"; }
    server=$first serve_in_background "$(server_log proxy-1)" TRUSTED_PROXIES=127.0.0.1/32 PROXY_PROTOCOL_PORT=0
    server1_pid=$server_pid server1_port=${base_url##*:} server1_proxy=$(proxy_port "$(server_log proxy-1)")
    pids+=("$server1_pid")
    serve_in_background "$(server_log proxy-2)" TRUSTED_PROXIES=127.0.0.1/32 PROXY_PROTOCOL_PORT=0
    server2_pid=$server_pid server2_port=${base_url##*:} server2_proxy=$(proxy_port "$(server_log proxy-2)")
    pids+=("$server2_pid")
    server_pid=""

    # haproxy_start NAME VAR=value...: haproxy with the deployment's file and these variables,
    # unprivileged, in the foreground, a master and its worker as Debian's unit runs it (-W),
    # its log in $work/haproxy-NAME.log; sets haproxy_port once it answers on it and
    # haproxy_pid (the master's).
    haproxy_start() {
        local name=$1 log=$work/haproxy-$1.log
        shift
        haproxy_port=$(free_port)
        env FOCUS_BIND="127.0.0.1:$haproxy_port" FOCUS_CERT="$work/haproxy.pem" FOCUS_HAPROXY_USER= "$@" \
            haproxy -W -db -f "$ROOT/deploy/haproxy/focus-island.cfg" >"$log" 2>&1 &
        haproxy_pid=$!
        pids+=("$haproxy_pid")
        # shellcheck disable=SC2317 # called by poll
        listening() { curl -s -o /dev/null --cacert "$work/ca.pem" "https://127.0.0.1:$haproxy_port/"; }
        poll 10000 listening || { cat "$log" >&2; check "haproxy ($name) did not start" FAILED; return 1; }
    }
    local haproxy_port haproxy_pid metrics_port
    metrics_port=$(free_port)
    haproxy_start servers FOCUS_SERVER1="127.0.0.1:$server1_port" FOCUS_SERVER2="127.0.0.1:$server2_port" \
        FOCUS_HAPROXY_STATS="$work/admin.sock" FOCUS_HAPROXY_METRICS="127.0.0.1:$metrics_port"
    local servers_port=$haproxy_port port=$haproxy_port url="https://localhost:$haproxy_port"
    # tls VERSION ARGS...: curl to haproxy as a phone would: HTTPS, the check's CA, HTTP/VERSION.
    tls() {
        local version=$1
        shift
        curl -s --cacert "$work/ca.pem" --resolve "localhost:$port:127.0.0.1" "--http$version" "$@"
    }

    # 1. Both protocols, end to end.
    # shellcheck disable=SC2317 # called by poll
    began() { grep -q '^retry:' "$1"; }  # a stream's first line arrived
    local owner_url item other_item
    owner_url=$(cluster_url "$dir" focus_owner)
    read -r item other_item <<<"$(psql -X -At "$owner_url" -c \
        "select string_agg(id::text, ' ') from (select id from app.shop_items where price > 0 and active order by price, id limit 2) i")"
    local version health answer user token purchase stream stream_pid started
    for version in 2 1.1; do
        health=$(tls "$version" --max-time 10 -o /dev/null -w '%{http_code} %{http_version}' "$url/health" || true)
        answer=$(tls "$version" --max-time 10 -X POST "$url/auth/register" -H 'Content-Type: application/json' \
            -d "{\"email\":\"proxy-$version-$RANDOM$RANDOM@example.com\",\"password\":\"correct horse\",\"display_name\":\"Proxy\"}" || true)
        read -r user token < <(python3 -c 'import json, sys; a = json.load(sys.stdin); print(a["user"]["id"], a["token"])' \
            <<<"$answer" 2>/dev/null) || true
        [ -n "${token:-}" ] || { check "HTTP/$version: sign-up through haproxy answered '${answer:0:200}'" FAILED; return 1; }
        psql -X -q -At "$owner_url" -c "select app.grant_coins('$user', 1000, 'proxy check')" >/dev/null
        stream=$work/stream-$version.out
        : >"$stream"  # the background curl may open it after poll's first look
        tls "$version" -N --max-time 30 "$url/events" -H 'Accept: text/event-stream' -H "Authorization: Bearer $token" \
            >"$stream" 2>/dev/null &
        stream_pid=$!
        pids+=("$stream_pid")
        poll 10000 began "$stream" || { check "HTTP/$version: GET /events through haproxy did not answer" FAILED; return 1; }
        started=$(now_ms)
        purchase=$(tls "$version" --max-time 10 -o /dev/null -w '%{http_code} %{http_version}' -X POST "$url/shop/purchases" \
            -H "Authorization: Bearer $token" -H 'Content-Type: application/json' -d "{\"item_id\":\"$item\"}" || true)
        # shellcheck disable=SC2317 # called by poll
        arrived() { grep -q '^event: balance.changed' "$stream"; }
        if [ "$health" = "200 $version" ] && [ "$purchase" = "201 $version" ] && poll 5000 arrived; then
            check "HTTP/$version through haproxy: /health 200, sign-up, purchase 201; the stream got balance.changed in $(($(now_ms) - started)) ms" ok
        else
            check "HTTP/$version through haproxy: /health '$health', purchase '$purchase', stream: $(grep -c '^event:' "$stream") events" FAILED
            return 1
        fi
        kill "$stream_pid" 2>/dev/null || true
    done

    # 2. A renewed certificate: written where FOCUS_CERT points, then put in through the admin
    #    socket without a reload; then a reload as `systemctl reload haproxy` does (SIGUSR2 to
    #    the master). A stream opened before both still receives, and no request meanwhile is
    #    refused (the new worker takes the listening socket over).
    admin() {
        python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.argv[2].encode() + b"\n")
print(s.makefile().read(), end="")' "$work/admin.sock" "$1"
    }
    served_serial() {
        openssl s_client -connect "127.0.0.1:$port" -servername localhost </dev/null 2>/dev/null |
            openssl x509 -noout -serial 2>/dev/null || true
    }
    local old_serial new_serial swapped reloaded statuses="" n
    old_serial=$(served_serial)
    openssl x509 -req -in "$work/cert.csr" -CA "$work/ca.pem" -CAkey "$work/ca-key.pem" -CAserial "$work/ca.srl" -days 1 \
        -extfile <(printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n') -out "$work/cert-renewed.pem" 2>/dev/null
    new_serial=$(openssl x509 -noout -serial -in "$work/cert-renewed.pem")
    cat "$work/cert-renewed.pem" "$work/key.pem" >"$work/haproxy.pem"
    stream=$work/stream-reload.out
    : >"$stream"
    tls 2 -N --max-time 30 "$url/events" -H 'Accept: text/event-stream' -H "Authorization: Bearer $token" >"$stream" 2>/dev/null &
    stream_pid=$!
    pids+=("$stream_pid")
    poll 10000 began "$stream" || { check "GET /events through haproxy did not answer" FAILED; return 1; }
    admin "set ssl cert $work/haproxy.pem <<
$(cat "$work/haproxy.pem")
" >/dev/null
    admin "commit ssl cert $work/haproxy.pem" >/dev/null
    swapped=$(served_serial)
    kill -USR2 "$haproxy_pid"
    for n in $(seq 20); do
        statuses+="$(tls 1.1 --max-time 10 -o /dev/null -w '%{http_code}' "$url/health?check=reload-$n" || true) "
    done
    # shellcheck disable=SC2317 # called by poll
    reload_done() { [ "$(grep -c 'Loading success' "$work/haproxy-servers.log")" -ge 2 ]; }  # the start's, the reload's
    poll 10000 reload_done || true
    reloaded=$(served_serial)
    started=$(now_ms)
    # Another item: the first one is owned already, and buying it again changes no balance.
    tls 1.1 --max-time 10 -o /dev/null -X POST "$url/shop/purchases" -H "Authorization: Bearer $token" \
        -H 'Content-Type: application/json' -d "{\"item_id\":\"$other_item\"}" || true
    if [ "$old_serial" != "$new_serial" ] && [ "$swapped" = "$new_serial" ] && [ "$reloaded" = "$new_serial" ] &&
        [ "$(tr ' ' '\n' <<<"$statuses" | grep -c '^200$')" = 20 ] && reload_done && poll 5000 arrived; then
        check "a renewed certificate served after set ssl cert (no reload); reloaded: 20 requests 200, an open stream still receiving" ok
    else
        check "certificate ${old_serial#serial=} → ${new_serial#serial=}: served ${swapped#serial=}, after reload ${reloaded#serial=}; requests $statuses" FAILED
        return 1
    fi
    kill "$stream_pid" 2>/dev/null || true

    # 3. The phone's own address, as the servers see it. One client probes sign-up with taken
    #    emails and wrong reset codes until refused while 19 others sign up, sign in and reset
    #    (Tests/system/address-drill.py): from 20 addresses through haproxy, then from one
    #    address standing for a school's NAT, then straight to a server with a made-up
    #    X-Forwarded-For on every request, which must change nothing (127.3.0.2 is not trusted).
    local mode
    for mode in spread nat; do
        FOCUS_CA="$work/ca.pem" python3 "$ROOT/Tests/system/address-drill.py" "https://127.0.0.1:$servers_port" \
            "$owner_url" "$mode" || return 1
    done
    python3 "$ROOT/Tests/system/address-drill.py" "http://127.0.0.1:$server2_port" "$owner_url" spoof || return 1
    # Through PROXY protocol v2 to the servers' second port: a sign-in from 127.4.0.9 is
    # recorded as 127.4.0.9 (the account's export lists the addresses it signed in from).
    haproxy_start proxy-real FOCUS_PROXY_PROTOCOL=1 FOCUS_SERVER1_PROXY="127.0.0.1:$server1_proxy" \
        FOCUS_SERVER2_PROXY="127.0.0.1:$server2_proxy"
    local email addresses
    email="proxy-v2-$RANDOM$RANDOM@example.com"
    port=$haproxy_port url="https://localhost:$haproxy_port"
    tls 2 --max-time 10 -o /dev/null --interface 127.4.0.9 -X POST "$url/auth/register" -H 'Content-Type: application/json' \
        -d "{\"email\":\"$email\",\"password\":\"correct horse\",\"display_name\":\"Proxy\"}" || true
    answer=$(tls 2 --max-time 10 --interface 127.4.0.9 -X POST "$url/auth/login" -H 'Content-Type: application/json' \
        -d "{\"email\":\"$email\",\"password\":\"correct horse\"}" || true)
    token=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])' <<<"$answer" 2>/dev/null || true)
    addresses=$(tls 2 --max-time 10 --interface 127.4.0.9 "$url/me/export" -H "Authorization: Bearer $token" |
        python3 -c 'import json, sys; print(" ".join(a["address"] for a in json.load(sys.stdin)["sign_in_addresses"]))' 2>/dev/null || true)
    if [ "$addresses" = 127.4.0.9 ]; then
        check "PROXY v2 to the servers' PROXY_PROTOCOL_PORT: a sign-in from 127.4.0.9 is recorded as 127.4.0.9" ok
    else
        check "PROXY v2: the sign-in from 127.4.0.9 was recorded as '$addresses'" FAILED
        return 1
    fi

    # 4. What a server is told of the phone: a stand-in server writes down what arrives.
    # peer_start NAME [--proxy-v2]: sets peer_port.
    peer_start() {
        local log=$work/peer-$1.log
        : >"$work/peer-$1.out"
        python3 "$ROOT/Tests/system/proxy-peer.py" "${@:2}" "$log" >"$work/peer-$1.out" 2>&1 &
        pids+=($!)
        # shellcheck disable=SC2317 # called by poll
        peer_listening() { grep -q '^listening on' "$1"; }
        poll 10000 peer_listening "$work/peer-$1.out" || { cat "$work/peer-$1.out" >&2; return 1; }
        peer_port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/peer-$1.out")
    }
    local peer_port seen
    peer_start forwardfor
    haproxy_start forwardfor FOCUS_SERVER1="127.0.0.1:$peer_port" FOCUS_SERVER2="127.0.0.1:$peer_port"
    port=$haproxy_port url="https://localhost:$haproxy_port"
    tls 2 --max-time 10 -o /dev/null "$url/me?check=xff" -H 'X-Forwarded-For: 203.0.113.7' -H 'Forwarded: for=198.51.100.1' || true
    seen=$(grep '^GET /me?check=xff ' "$work/peer-forwardfor.log" || true)
    if [ "$seen" = "GET /me?check=xff proxy=none xff=203.0.113.7|127.0.0.1 proto=https forwarded=-" ]; then
        check "a spoofed X-Forwarded-For arrives with haproxy's 127.0.0.1 after it; Forwarded dropped; X-Forwarded-Proto https" ok
    else
        check "X-Forwarded-For: the server was sent '$seen'" FAILED
        return 1
    fi
    peer_start proxy --proxy-v2
    haproxy_start proxy FOCUS_PROXY_PROTOCOL=1 FOCUS_SERVER1_PROXY="127.0.0.1:$peer_port" FOCUS_SERVER2_PROXY="127.0.0.1:$peer_port"
    port=$haproxy_port url="https://localhost:$haproxy_port"
    tls 1.1 --max-time 10 -o /dev/null "$url/me?check=proxy" -H 'X-Forwarded-For: 203.0.113.7' || true
    seen=$(grep '^GET /me?check=proxy ' "$work/peer-proxy.log" || true)
    # shellcheck disable=SC2317 # called by poll
    checked_with_header() { grep -q "^GET /ready proxy=local " "$work/peer-proxy.log"; }
    if [[ "$seen" =~ ^"GET /me?check=proxy proxy=127.0.0.1:"[0-9]+">127.0.0.1:$haproxy_port xff=- proto=https forwarded=-"$ ]] &&
        poll 5000 checked_with_header; then
        check "FOCUS_PROXY_PROTOCOL: PROXY v2 with the phone's address; /ready checks with v2 LOCAL; X-Forwarded-For dropped" ok
    else
        check "PROXY v2: the server was sent '$seen'; checks: $(grep -c '^GET /ready' "$work/peer-proxy.log")" FAILED
        return 1
    fi

    # 5. Drained through the admin socket, as a drill or a deploy does before stopping a server.
    port=$servers_port url="https://localhost:$servers_port"
    local log=$work/haproxy-servers.log n drained restored
    # answered_by PATTERN: the servers that answered the requests whose log lines match, counted.
    answered_by() { { grep -e "$1" "$log" || true; } | grep -o 'focus_servers/s[12]' | sort | uniq -c | xargs; }
    # shellcheck disable=SC2317 # called by poll
    logged() { [ "$(grep -c -e "$1" "$log")" -ge "$2" ]; }
    admin "set server focus_servers/s1 state drain" >/dev/null
    for n in $(seq 10); do tls 1.1 --max-time 10 -o /dev/null "$url/health?check=drain-$n" || true; done
    poll 5000 logged 'check=drain-' 10 || true
    drained=$(answered_by 'check=drain-')
    admin "set server focus_servers/s1 state ready" >/dev/null
    for n in $(seq 10); do tls 1.1 --max-time 10 -o /dev/null "$url/health?check=ready-$n" || true; done
    poll 5000 logged 'check=ready-' 10 || true
    restored=$(answered_by 'check=ready-')
    if [ "$drained" = "10 focus_servers/s2" ] && [[ "$restored" =~ ^[0-9]+" focus_servers/s1 "[0-9]+" focus_servers/s2"$ ]]; then
        check "admin socket: s1 drained, 10 requests all to s2; state ready: both again ($restored)" ok
    else
        check "admin socket: drained '$drained', after ready '$restored'" FAILED
        return 1
    fi

    # 6. Server 1 killed: GETs sent at once still answer (a refused connection is tried on s2),
    #    and the /ready checks take it out.
    { kill -9 "$server1_pid" && wait "$server1_pid"; } 2>/dev/null || true
    local statuses="" retried
    for n in $(seq 20); do
        statuses+="$(tls 2 --max-time 10 -o /dev/null -w '%{http_code}' "$url/shop/items?check=kill-$n" || true) "
    done
    # shellcheck disable=SC2317 # called by poll
    marked_down() { grep -q 'Server focus_servers/s1 is DOWN' "$log"; }
    started=$(now_ms)
    # httplog's retries field is "+N" when a request was redispatched to another server.
    retried=$(grep 'check=kill-' "$log" | grep -c ' [0-9]*/[0-9]*/[0-9]*/[0-9]*/+[1-9] ' || true)
    if [ "$(tr ' ' '\n' <<<"$statuses" | grep -c '^200$')" = 20 ] && [ "$retried" -gt 0 ] && poll 10000 marked_down; then
        check "s1 killed -9: 20 GETs at once all 200 ($retried retried on s2); marked down by /ready $(($(now_ms) - started)) ms after" ok
    else
        check "s1 killed -9: answers $statuses; marked down: $(grep -c 'is DOWN' "$log")" FAILED
        return 1
    fi

    # 7. haproxy's own metrics: one server active now.
    local active
    active=$(curl -s --max-time 10 "http://127.0.0.1:$metrics_port/metrics" |
        sed -n 's/^haproxy_backend_active_servers{proxy="focus_servers"} //p' || true)
    if [ "$active" = 1 ]; then
        check "haproxy's /metrics: haproxy_backend_active_servers{proxy=\"focus_servers\"} 1; server 1 ran $mdwe" ok
    else
        check "haproxy's /metrics: active servers '$active'" FAILED
        return 1
    fi

    # 8. The exporter's queries, as the monitoring runs them (focus_monitor over the socket).
    local exporter_port scrape=$work/exporter.metrics families
    exporter_port=$(free_port)
    DATA_SOURCE_NAME="postgresql://focus_monitor@:$PG_PORT/focus_island?host=$dir&sslmode=disable" \
        prometheus-postgres-exporter --extend.query-path="$ROOT/deploy/prometheus/postgres-exporter.yml" \
        --web.listen-address="127.0.0.1:$exporter_port" >"$work/exporter.log" 2>&1 &
    pids+=($!)
    # shellcheck disable=SC2317 # called by poll
    scraped() { curl -s --max-time 5 "http://127.0.0.1:$exporter_port/metrics" >"$scrape" && grep -q '^pg_up ' "$scrape"; }
    poll 10000 scraped || true
    families=$(sed -n 's/^\(focus_[a-z_]*\){.*/\1/p' "$scrape" | sort -u | wc -l)
    # 3 of the outboxes, 4 of the jobs, 3 of replication, 4 of the archiver; the
    # focus_replication_standby_* ones only where a standby streams.
    if grep -q '^pg_up 1$' "$scrape" && grep -q '^pg_exporter_last_scrape_error 0$' "$scrape" &&
        grep -q '^pg_exporter_user_queries_load_error{.*} 0$' "$scrape" && [ "$families" = 14 ]; then
        check "deploy/prometheus/postgres-exporter.yml as focus_monitor: $families focus_ metrics, no query error" ok
    else
        check "the exporter's queries: $families focus_ metrics; $(grep -e '^pg_up' -e '^pg_exporter_.*_error' "$scrape" | tr '\n' ' ')" FAILED
        tail -n 5 "$work/exporter.log"
        return 1
    fi
}
