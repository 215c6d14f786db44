# shellcheck shell=bash disable=SC2154 # dir and server are set by scripts/test, base_url by serve_in_background
# push-checks.sh: `focus-island push` against a local HTTP/2 TLS peer (hypercorn + h2 in .venv)
# that checks the APNs and FCM requests as the services do (Tests/system/push-checks.py says
# what it checks). Sourced by scripts/test, which has started the cluster in $dir and built
# $server. A few seconds.

# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"

push_checks() {
    say "push checks (the sender against a local APNs/FCM peer over HTTP/2 and TLS)"
    local python=$ROOT/.venv/bin/python work=$dir/push status=0
    [ -x "$python" ] || die "no $python; run scripts/setup"
    rm -rf "$work" && mkdir -p "$work"
    serve_in_background "$(server_log push)"
    "$python" "$ROOT/Tests/system/push-checks.py" "$server" "$base_url" "$(cluster_url "$dir" focus_api)" \
        "$(cluster_url "$dir" focus_owner)" "$work" || status=$?
    server_stop
    [ "$status" = 0 ] || { tail -n 20 "$work/peer.log" 2>/dev/null; die "push checks failed"; }
    check "push checks" ok
}
