# shellcheck shell=bash disable=SC2154 # dir and server: scripts/chaos's and common.sh's
# live-migration.sh: the drill of scripts/chaos live-migration. On the throwaway cluster in $dir
# (migrated and seeded), app.focus_sessions is filled to LIVE_SESSIONS rows (1,000,000:
# LIVE_USERS accounts, 4,000, with as many sessions each; Tests/system/live-migration/fill.sql,
# set-based as the superuser), the server started, and Tests/system/live-migration-drill.py runs
# its load while `focus-island migrate` applies the fixtures of Tests/system/live-migration/ to a
# copy of sql/ (the repository's migrations stay as they are): the linter passes them first.
# One line per figure; returns 1 if any check failed. The last run's logs stay in
# .pgdata/live-migration-last/.

# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"  # now_ms

drill_live_migration() {
    # Not local: the EXIT trap reads it after this function has returned.
    work=$dir/live-migration
    mkdir -p "$work"
    trap live_migration_remove EXIT
    local fixtures=("$ROOT"/Tests/system/live-migration/[0-9]*.sql) ok=yes findings

    # The fixtures are written by the linter's rules: it must pass them as they are.
    if findings=$("$ROOT/.venv/bin/python" "$ROOT/scripts/lib/migration-lint.py" "${fixtures[@]}" 2>&1); then
        check "the migration linter passes the ${#fixtures[@]} fixtures" ok
    else
        check "the migration linter passes the ${#fixtures[@]} fixtures" FAILED
        printf '%s\n' "$findings" | sed 's/^/      /'
        return 1
    fi
    cp -r "$ROOT/sql" "$work/sql"

    local users=${LIVE_USERS:-4000} sessions=${LIVE_SESSIONS:-1000000} started rows
    started=$(now_ms)
    psql -X -q -v ON_ERROR_STOP=1 -v users="$users" -v per_user=$(( sessions / users )) \
        "$(cluster_url "$dir" postgres)" -f "$ROOT/Tests/system/live-migration/fill.sql" >/dev/null
    psql -X -q -v ON_ERROR_STOP=1 "$(cluster_url "$dir" postgres)" -c "vacuum (analyze) app.focus_sessions"
    rows=$(psql -X -At "$(cluster_url "$dir" postgres)" -c "select count(*) from app.focus_sessions")
    check "app.focus_sessions filled: $rows rows ($users accounts) in $(( ($(now_ms) - started) / 1000 )) s, vacuumed" \
        "$([ "$rows" -ge "$sessions" ] && echo ok || echo FAILED)"

    serve_in_background "$work/server.log"
    say "the server on $base_url; the load, then the migrations under it"
    python3 "$ROOT/Tests/system/live-migration-drill.py" "$base_url" "$MIGRATION_DATABASE_URL" "$server" \
        "$work/sql" "${fixtures[@]}" || ok=no
    # The migrator's retries and waits, as its log tells them.
    grep -E 'attempt [0-9]+ of|gave up|another migrate' "$work/migrate.log" | cut -c1-200 | sed 's/^/      /' || true
    [ "$ok" = yes ]
}

live_migration_remove() {
    local status=$?
    # The last run's logs outlive the cluster's folder.
    if [ -d "${work:-}" ]; then
        rm -rf "$ROOT/.pgdata/live-migration-last" && mkdir -p "$ROOT/.pgdata/live-migration-last"
        cp "$work"/*.log "$ROOT/.pgdata/live-migration-last/" 2>/dev/null || true
    fi
    throwaway_cluster_remove
    return "$status"
}
