#!/usr/bin/env bash
# previous-release-checks.sh: the previous release's server on this checkout's schema, the proof
# behind "migrate first, then roll" (docs/operations.md, "Migrating a live database"): while the
# new migrations apply, and while the servers roll, the previous release serves the new schema.
# Sourced by scripts/test (the cluster in $dir migrated by this checkout and seeded);
# `scripts/check --previous-release` runs it alone on the check cluster.
#   1. the newest release is the first `## [X.Y.Z] - DATE (commit SHA)` heading of CHANGELOG.md,
#      its one record; a commit a shallow clone lacks is fetched (--depth=1), and one still
#      missing is one loud NOT PROVEN line, counted in scripts/test's summary;
#   2. that commit's tree (git archive) is built once, in a cache keyed by the commit beside the
#      clusters (/var/tmp/focus-island-USER-release-SHA12, shared by the user's checkouts): its
#      server and its `focus` CLI, debug, nothing else; a warm run builds nothing;
#   3. its server serves the cluster with its own files (SQL_DIR, assets, web pages) and as
#      focus_api only, so it cannot migrate; app.schema_migrations is the same after;
#   4. the release's own CLI checks (its Tests/system/cli-checks.sh, scripts/lib/ in releases
#      before the checks moved to Tests/system/, with its own common.sh: the
#      old client against the old server) run against it: register, friends by email with the
#      request live on an event stream, a purchase, a session rated with its tip, tips, rooms,
#      achievements, a gift, streak freezes, bad input; then one more person signs out and in,
#      and a 25-minute live session (its start moved back by the operator, in SQL) earns coins
#      and is rated with a tip.
# It sets previous_release_result, the one line scripts/test prints in its summary.
# shellcheck disable=SC2154 # dir is set by scripts/test or scripts/check
# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"

# previous_release: "VERSION SHA" of CHANGELOG.md's newest release heading (the first with a
# version); one in another form is an error, not a reason to read an older one.
previous_release() {
    local heading
    heading=$(grep -m 1 -E '^## \[[0-9]+\.[0-9]+\.[0-9]+\]' "$ROOT/CHANGELOG.md") || die "CHANGELOG.md has no release heading"
    sed -nE 's/^## \[([0-9]+\.[0-9]+\.[0-9]+)\] - [0-9]{4}-[0-9]{2}-[0-9]{2} \(commit ([0-9a-f]{40})\)(: .*)?$/\1 \2/p' <<<"$heading" |
        grep . || die "CHANGELOG.md's newest release heading is not '## [X.Y.Z] - DATE (commit SHA)': $heading"
}

# previous_release_build SHA: the release's tree and its two binaries in the cache (sets
# release_tree); built at most once per commit, under a lock, so two checkouts share one build.
previous_release_build() {
    local sha=$1 cache
    cache="/var/tmp/focus-island-$(id -un)-release-${sha:0:12}"
    release_tree=$cache/tree
    mkdir -p "$cache"
    exec 8>"$cache.lock"
    flock 8
    if [ ! -f "$cache/built" ]; then
        say "previous release: building ${sha:0:12}'s server and focus CLI in $cache (once per commit)"
        rm -rf "$release_tree"
        mkdir -p "$release_tree"
        git -C "$ROOT" archive "$sha" | tar -x -C "$release_tree"
        (cd "$release_tree" && swift build --product focus-island && swift build --product focus) \
            >"$cache/build.log" 2>&1 || { tail -n 30 "$cache/build.log" >&2; exec 8>&-; die "the previous release did not build"; }
        touch "$cache/built"
    fi
    exec 8>&-
}

# migrations_applied: the cluster's app.schema_migrations, one line.
migrations_applied() {
    psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) || ' up to ' || max(version) from app.schema_migrations"
}

previous_release_checks() {
    local release version sha started before status=0
    started=$SECONDS
    release=$(previous_release) || exit 1
    read -r version sha <<<"$release"
    say "previous release: $version (commit ${sha:0:12}), its server and CLI on this checkout's schema"
    if ! git -C "$ROOT" cat-file -e "$sha^{commit}" 2>/dev/null; then
        git -C "$ROOT" fetch -q --depth=1 origin "$sha" >/dev/null 2>&1 || true
    fi
    if ! git -C "$ROOT" cat-file -e "$sha^{commit}" 2>/dev/null; then
        printf '\033[1;31mprevious release: NOT PROVEN, commit %s is not in this clone\033[0m\n' "$sha" >&2
        previous_release_result="previous release $version: NOT PROVEN, commit $sha is not in this clone"
        return 0
    fi
    local cached=warm
    [ -f "/var/tmp/focus-island-$(id -un)-release-${sha:0:12}/built" ] || cached=cold
    previous_release_build "$sha"
    before=$(migrations_applied)
    # A rule added since 1.2.0 that the release's journey cannot meet, as its accounts are
    # minutes old: a gift's sender an account at least 7 days old (2026-12-06). It is a setting,
    # so it is set to zero for the run and put back after: the journey proves the server, not
    # that rules never tighten (a tightened rule is listed in CHANGELOG.md for clients).
    local gift_age
    gift_age=$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select min_sender_account_age from app.gift_settings")
    psql -X -q "$(cluster_url "$dir" postgres)" -c "update app.gift_settings set min_sender_account_age = '0'" >/dev/null

    # The release's own checks, in a subshell with its own helpers (common.sh, http.sh), its
    # server serving with its own files and as focus_api (which may not run DDL), from its tree.
    # In the background and waited for: a subshell tested by || would run with set -e ignored.
    (
        set -e
        trap '[ -z "${server_pid:-}" ] || server_stop' EXIT
        cd "$release_tree"
        # shellcheck source=/dev/null
        source "$release_tree/scripts/lib/common.sh"
        # Its checks where it keeps them: Tests/system/, or scripts/lib/ in a release from
        # before they moved (1.2.0 and earlier).
        release_checks=$release_tree/Tests/system/cli-checks.sh
        [ -f "$release_checks" ] || release_checks=$release_tree/scripts/lib/cli-checks.sh
        # shellcheck source=/dev/null
        source "$release_checks"
        cli_build() { printf '%s/.build/debug/focus' "$release_tree"; }
        # The journey's own SQL (the operator's part) backdates a session of a minutes-old
        # account, which a trigger added since refuses (a session starts after its account,
        # 2026-12-06); it writes as the bulk import does, past that trigger. The server's
        # connections do not: their environment is not this function's.
        psql() { PGOPTIONS="-c focus.bulk_import=on" command psql "$@"; }
        export SQL_DIR="$release_tree/sql" MIGRATION_DATABASE_URL=$DATABASE_URL
        server=$release_tree/.build/debug/focus-island
        cli_checks
        previous_release_session
    ) &
    wait $! || status=$?
    psql -X -q "$(cluster_url "$dir" postgres)" -c "update app.gift_settings set min_sender_account_age = '$gift_age'" >/dev/null
    if [ "$(migrations_applied)" = "$before" ]; then
        check "the previous release's server left app.schema_migrations as it was ($before)" ok
    else
        check "app.schema_migrations changed while the previous release served: $before, now $(migrations_applied)" FAILED
        status=1
    fi
    [ "$status" = 0 ] || die "the previous release $version (${sha:0:12}) failed on this checkout's schema (its server's log: $dir/cli-server.log)"
    previous_release_result="previous release $version (${sha:0:12}): its CLI checks passed against its server on this schema ($cached build, $((SECONDS - started)) s)"
    say "$previous_release_result"
}

# previous_release_session: in the release's subshell (cli_run, cli_expect, its server binary):
# a third person signs out and in again, and a live session of 25 minutes earns coins and is
# rated with a tip. The operator moves the account's creation and the session's start back in
# SQL, as the release's own checks backdate a session: no one waits 25 minutes.
# shellcheck disable=SC2034 # cli_home, cli_out, cli_status and focus are read by the release's cli_run
previous_release_session() {
    local focus cli_home="$dir/cli" cli_out cli_status cy="cy-$RANDOM$RANDOM@example.com"
    focus=$(cli_build)
    serve_in_background "$dir/previous-release-server.log"
    cli_run cy register "$cy" Cy
    cli_expect "previous release: register: Cy signed in" 0 "Signed in as Cy"
    cli_run cy logout
    cli_expect "previous release: logout" 0 "Signed out"
    cli_run cy login "$cy"
    cli_expect "previous release: login with the password" 0 "Signed in as Cy <$cy>"
    cli_run cy start 25
    cli_expect "previous release: start a 25-minute session" 0 "Session started: 25 minutes"
    psql -X -q -At -v ON_ERROR_STOP=1 "$(cluster_url "$dir" focus_owner)" -c "
        update app.users set created_at = created_at - interval '1 hour' where email = '$cy';
        update app.focus_sessions s
           set started_at = s.started_at - interval '25 minutes',
               occupies = tstzrange(lower(s.occupies) - interval '25 minutes', null)
          from app.users u
         where u.id = s.user_id and u.email = '$cy' and s.ended_at is null;" >/dev/null
    cli_run cy finish
    cli_expect "previous release: finish: 25 minutes focused earn coins" 0 "Session finished: 2[5-6] minutes focused, [1-9][0-9]* coins earned"
    cli_run cy rate good
    cli_expect "previous release: rate: the session is rated good, with its tip" 0 "^Tip: "
    cli_run cy me
    cli_expect "previous release: me: the coins are in the balance" 0 "Balance: [1-9][0-9]* coins"
    server_stop
}
