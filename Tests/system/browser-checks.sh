#!/usr/bin/env bash
# browser-checks.sh: the web pages (web/, docs/web.md) in Debian's chromium, headless, driven by
# Selenium (scripts/setup installs both) against the real server binary and the test cluster.
# Sourced by scripts/test (which has started the cluster in $dir and built $server); prints
# one line per step (Tests/system/browser-checks.py says which), any failure exits. It saves a
# screenshot of each page into $dir/screenshots, so a test run leaves the checkout as it was.
#
# Run on its own it does the same on a throwaway cluster and writes the screenshots into
# docs/screenshots/ (committed; the README shows two):
#   Tests/system/browser-checks.sh --screenshots docs/screenshots
# shellcheck disable=SC2154 # dir, server, server_pid and base_url are set by scripts/test and common.sh
# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"

# browser_checks [SCREENSHOT_DIR]
browser_checks() {
    say "browser checks (chromium headless, Selenium)"
    local status=0 shots=${1:-$dir/screenshots}
    serve_in_background "$dir/browser-server.log"
    mkdir -p "$shots"
    timeout 300 "$ROOT/.venv/bin/python" "$ROOT/Tests/system/browser-checks.py" "$base_url" \
        "$(cluster_url "$dir" focus_owner)" "$shots" || status=$?
    server_stop
    [ "$status" = 0 ] || { tail -20 "$dir/browser-server.log" >&2; die "browser checks failed"; }
}

# Run on its own: a throwaway cluster, the checks once, the screenshots where asked.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    if [ "${1:-}" != --screenshots ] || [ -z "${2:-}" ]; then
        die "usage: Tests/system/browser-checks.sh --screenshots FOLDER"
    fi
    mkdir -p "$2"
    shots=$(realpath "$2")
    throwaway_cluster browser
    server=$(build_server)
    "$server" migrate >/dev/null
    "$server" seed >/dev/null
    browser_checks "$shots"
    say "screenshots written to $2"
fi
