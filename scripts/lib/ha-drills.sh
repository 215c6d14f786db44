# ha-drills.sh: the failover and restore drills of scripts/chaos (failover, secondary, restore),
# on a formation of their own (scripts/ha with HA_DIR in a fresh .pgdata/drill-XXXXXX, removed
# on exit), against the real server binary serving on the formation's multi-host URL.
# Sourced by scripts/chaos after common.sh; each drill prints its figures, one line each.
# shellcheck shell=bash disable=SC2154 # server, server_pid and base_url: the caller's and common.sh's

HA_SOURCED=1
# shellcheck source=../ha
source "$ROOT/scripts/ha"
# shellcheck source=../backup
source "$ROOT/scripts/backup"

# drill_formation: a fresh formation, migrated and seeded; the server's URLs exported.
drill_formation() {
    mkdir -p "$ROOT/.pgdata"
    HA_DIR=$(mktemp -d "$ROOT/.pgdata/drill-XXXXXX")
    export HA_DIR
    trap drill_formation_remove EXIT
    local started
    started=$(date +%s)
    HA_NO_MIGRATE=1 ha_up
    say "formation up in $(( $(date +%s) - started )) s: $(ha_states)"
    eval "$(ha_urls)"
    export SQL_DIR="$ROOT/sql"
    "$server" migrate >/dev/null
    "$server" seed >/dev/null
}

drill_formation_remove() {
    [ -z "${server_pid:-}" ] || server_stop
    ha_down
    [ -n "${HA_DIR:-}" ] && case $HA_DIR in "$ROOT"/.pgdata/drill-*) rm -rf "$HA_DIR" ;; esac
}

# drill_failover: the primary's machine dies under load (scripts/lib/ha-drill.py kills it).
drill_failover() {
    drill_formation
    serve_in_background "$HA_DIR/server.log"
    say "primary killed under load: ${DRILL_CLIENTS:-16} clients buying and uploading, ${DRILL_STREAMS:-4} event streams"
    local ok=yes
    python3 "$ROOT/scripts/lib/ha-drill.py" "$base_url" "$MIGRATION_DATABASE_URL" "${DRILL_CLIENTS:-16}" "${DRILL_STREAMS:-4}" \
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
    python3 "$ROOT/scripts/lib/ha-drill.py" "$base_url" "$MIGRATION_DATABASE_URL" "${DRILL_CLIENTS:-16}" "${DRILL_STREAMS:-4}" \
        "'$ROOT/scripts/ha' kill-secondary >/dev/null" || ok=no
    check "the formation with its secondary gone: $(ha_states)" ok
    check "the primary's synchronous_standby_names now: '$(psql -X -At "$(ha_node_url "$primary" postgres postgres)" -c 'show synchronous_standby_names')'" ok
    [ "$ok" = yes ]
}
