# ha-drills.sh: the failover and restore drills of scripts/chaos (failover, secondary, restore),
# on a formation of their own (scripts/ha with HA_DIR in a fresh .pgdata/drill-XXXXXX, removed
# on exit), against the real server binary serving on the formation's multi-host URL.
# Sourced by scripts/chaos after common.sh; each drill prints its figures, one line each.
# shellcheck shell=bash disable=SC2154 # server, server_pid and base_url: the caller's and common.sh's

HA_SOURCED=1
now_ms() { date +%s%3N; }
# shellcheck source=../../scripts/ha
source "$ROOT/scripts/ha"

# drill_formation: a fresh formation, migrated and seeded; the server's URLs exported.
drill_formation() {
    mkdir -p "$ROOT/.pgdata"
    HA_DIR=$(mktemp -d "$ROOT/.pgdata/drill-XXXXXX")
    export HA_DIR
    trap drill_formation_remove EXIT
    HA_NO_MIGRATE=1 ha_up
    eval "$(ha_urls)"
    export SQL_DIR="$ROOT/sql"
    "$server" migrate >/dev/null
    "$server" seed >/dev/null
}

drill_formation_remove() {
    [ -z "${server_pid:-}" ] || server_stop
    # The last drill's server log outlives its formation (.pgdata/drill-last-server.log).
    [ ! -f "${HA_DIR:-}/server.log" ] || cp "$HA_DIR/server.log" "$ROOT/.pgdata/drill-last-server.log"
    case ${HA_DIR:-} in
        "$ROOT"/.pgdata/drill-*) ha_destroy ;;
        *) ha_down ;;
    esac
}

# drill_failover: the primary's machine dies under load (Tests/system/ha-drill.py kills it).
drill_failover() {
    drill_formation
    serve_in_background "$HA_DIR/server.log"
    say "primary killed under load: ${DRILL_CLIENTS:-16} clients buying and uploading, ${DRILL_STREAMS:-4} event streams"
    local ok=yes
    python3 "$ROOT/Tests/system/ha-drill.py" "$base_url" "$MIGRATION_DATABASE_URL" "${DRILL_CLIENTS:-16}" "${DRILL_STREAMS:-4}" \
        "'$ROOT/scripts/ha' kill-primary >/dev/null" || ok=no
    check "the formation after the failover: $(ha_states)" ok
    check "the server process was not restarted: pid $server_pid is the one started before the kill" \
        "$(kill -0 "$server_pid" 2>/dev/null && echo ok || echo FAILED)"
    grep -c 'listener: connected again' "$HA_DIR/server.log" | xargs -I{} printf '  %-92s %s\n' "listener reconnected {} time(s) (server log)" ok
    [ "$ok" = yes ]
}

# drill_secondary: the secondary's machine dies under load: writes go on once the monitor has
# turned synchronous replication off (wait_primary), and no acknowledged write is lost.
drill_secondary() {
    drill_formation
    serve_in_background "$HA_DIR/server.log"
    say "secondary killed under load"
    local ok=yes primary
    primary=$(ha_primary)
    python3 "$ROOT/Tests/system/ha-drill.py" "$base_url" "$MIGRATION_DATABASE_URL" "${DRILL_CLIENTS:-16}" "${DRILL_STREAMS:-4}" \
        "'$ROOT/scripts/ha' kill-secondary >/dev/null" || ok=no
    check "the formation with its secondary gone: $(ha_states)" ok
    check "the primary's synchronous_standby_names now: '$(psql -X -At "$(ha_node_url "$primary" postgres postgres)" -c 'show synchronous_standby_names')'" ok
    [ "$ok" = yes ]
}

# drill_counts URL [TIME]: "users N, items N, ledger N, sessions N, reconciliation N" on URL; with
# TIME only the rows made at or before it (items, ledger and sessions carry their time).
drill_counts() {
    local at=${2:-infinity}
    psql -X -At "$1" -c "select format('users %s, purchases (app.user_items) %s, ledger %s, sessions %s, reconciliation rows %s',
        (select count(*) from app.users u where u.created_at <= '$at'),
        (select count(*) from app.user_items i where i.acquired_at <= '$at'),
        (select count(*) from app.coin_ledger c where c.created_at <= '$at'),
        (select count(*) from app.focus_sessions s where s.created_at <= '$at'),
        (select count(*) from report.ledger_reconciliation))"
}

# drill_restore: point-in-time restore after a mistaken delete. The database is filled
# (DRILL_SCALE users, scripts/bench.d/scale.sql), backed up (full, load, incremental), loaded
# again; the time is noted with the load paused; more load; then `delete from app.user_items`
# (every purchase gone) by mistake. pgBackRest restores to the noted time into a cluster beside
# the formation: the rows at the noted time are all there, none after it, the ledger reconciles.
drill_restore() {
    drill_formation
    serve_in_background "$HA_DIR/server.log"
    local su_url owner_url load=(python3 "$ROOT/Tests/system/ha-drill.py" load "$base_url" "$MIGRATION_DATABASE_URL" 8)
    su_url=$(ha_url postgres)
    owner_url=$MIGRATION_DATABASE_URL
    local scale=${DRILL_SCALE:-50000} started
    started=$(now_ms)
    psql -X -q -v from=1 -v to="$scale" "$su_url" -f "$ROOT/scripts/bench.d/scale.sql" >/dev/null
    psql -X -q "$su_url" -c 'vacuum analyze' >/dev/null
    say "filled $scale users in $(( $(now_ms) - started )) ms; database $(psql -X -At "$su_url" -c "select pg_size_pretty(pg_database_size('focus_island'))")"
    "$ROOT/scripts/backup" backup --full
    say "load: $("${load[@]}" 8)"
    "$ROOT/scripts/backup" backup
    say "load: $("${load[@]}" 5)"
    local noted before after_load after_delete
    noted=$(psql -X -At "$su_url" -c "select now()")
    before=$(drill_counts "$owner_url" "$noted")
    check "noted time $noted; rows at that time: $before" ok
    sleep 1
    say "load after the noted time: $("${load[@]}" 5)"
    after_load=$(drill_counts "$owner_url")
    check "rows after more load: $after_load" ok
    psql -X -q "$owner_url" -c 'delete from app.user_items' >/dev/null
    after_delete=$(drill_counts "$owner_url")
    check "after the mistaken delete from app.user_items: $after_delete" ok
    server_stop
    server_pid=""
    # The archive must hold WAL past the noted time: check switches a segment and waits for it.
    "$ROOT/scripts/backup" check >/dev/null
    local size
    size=$(psql -X -At "$su_url" -c "select pg_database_size('focus_island')")
    BACKUP_SOURCED=1 HA_SOURCED=1 source "$ROOT/scripts/backup"
    backup_restore "$noted"
    local restored_url restored ok=yes
    restored_url="postgresql://postgres@127.0.0.1:$restore_port/focus_island"
    restored=$(drill_counts "$restored_url")
    local later
    later=$(psql -X -At "$restored_url" -c "select (select count(*) from app.user_items where acquired_at > '$noted')
        + (select count(*) from app.coin_ledger where created_at > '$noted') + (select count(*) from app.users where created_at > '$noted')")
    [ "$restored" = "$before" ] || ok=no
    check "restored to $noted: $restored" "$([ "$restored" = "$before" ] && echo ok || echo "FAILED (expected $before)")"
    check "rows made after the noted time in the restored copy: $later" "$([ "$later" = 0 ] && echo ok || echo FAILED)"
    [ "$later" = 0 ] || ok=no
    check "restore took $restore_ms ms for a database of $(( size / 1048576 )) MB ($(awk -v ms="$restore_ms" -v b="$size" 'BEGIN { printf "%.1f", b / 1048576 / (ms / 1000) }') MB/s, recovery included)" ok
    as_cluster_owner "$PG_BIN/pg_ctl" -D "$restore_dir" -m fast -w stop >/dev/null
    [ "$ok" = yes ]
}
