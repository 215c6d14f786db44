#!/usr/bin/env bash
# browser-checks.sh: the web pages (web/, docs/web.md) in Debian's chromium, headless, driven by
# Selenium (scripts/setup installs both) against the real server binary and the test cluster.
# Sourced by scripts/test (which has started the cluster in $dir and built $server); prints
# one line per step (scripts/lib/browser-checks.py says which), any failure exits. The
# screenshots of each page go to docs/screenshots/ (committed; the README shows two).
# shellcheck disable=SC2154 # dir, server, server_pid and base_url are set by scripts/test and common.sh
# shellcheck source=common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

browser_checks() {
    say "browser checks (chromium headless, Selenium)"
    local status=0
    serve_in_background "$dir/browser-server.log"
    mkdir -p "$ROOT/docs/screenshots"
    timeout 300 "$ROOT/.venv/bin/python" "$ROOT/scripts/lib/browser-checks.py" "$base_url" \
        "$(cluster_url "$dir" focus_owner)" "$ROOT/docs/screenshots" || status=$?
    server_stop
    [ "$status" = 0 ] || { tail -20 "$dir/browser-server.log" >&2; die "browser checks failed"; }
}
