# replica.sh: a streaming replica of the cluster in DIR, for READ_DATABASE_URL (scripts/bench
# --replica, Tests/system/replica-checks.sh). pg_basebackup -R copies the running cluster into
# DIR/replica/data and writes standby.signal and primary_conninfo; the replica has its own
# socket folder (DIR/replica) and port. Sourced after common.sh.
# shellcheck shell=bash

REPLICA_PORT=54331

# replica_start DIR: copies the primary (running in DIR) and starts the copy as a hot standby.
replica_start() {
    local dir=$1
    mkdir -p "$dir/replica"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/replica"; fi
    chmod 700 "$dir/replica"
    as_cluster_owner "$PG_BIN/pg_basebackup" -h "$dir" -p "$PG_PORT" -U postgres -D "$dir/replica/data" \
        -R -X stream -c fast >"$dir/replica/basebackup.log" 2>&1 \
        || { cat "$dir/replica/basebackup.log" >&2; die "pg_basebackup failed"; }
    replica_resume "$dir"
}

# replica_resume DIR: starts the replica copied by replica_start again (after replica_stop).
replica_resume() {
    local dir=$1
    as_cluster_owner "$PG_BIN/pg_ctl" -D "$dir/replica/data" -l "$dir/replica/postgres.log" -w -t 60 start \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir/replica' -p $REPLICA_PORT \
            -c hot_standby=on -c max_connections=200 -c shared_buffers=256MB $PG_STATEMENT_STATS" >/dev/null \
        || { tail -n 20 "$dir/replica/postgres.log" >&2; die "the replica did not start"; }
    [ "$(psql -X -At "$(replica_url "$dir" postgres)" -c 'select pg_is_in_recovery()')" = t ] \
        || die "the replica is not in recovery"
}

replica_stop() {
    [ -f "$1/replica/data/PG_VERSION" ] || return 0
    as_cluster_owner "$PG_BIN/pg_ctl" -D "$1/replica/data" -m fast -w stop >/dev/null 2>&1 || true
}

# replica_url DIR ROLE: a libpq URL for ROLE on the replica.
replica_url() {
    printf 'postgresql://%s@/focus_island?host=%s/replica&port=%s' "$2" "$1" "$REPLICA_PORT"
}

# replica_wait DIR: waits until the replica has replayed everything the primary wrote so far.
replica_wait() {
    local lsn
    lsn=$(psql -X -At "$(cluster_url "$1" postgres)" -c 'select pg_current_wal_lsn()')
    for _ in $(seq 200); do
        [ "$(psql -X -At "$(replica_url "$1" postgres)" -c "select pg_last_wal_replay_lsn() >= '$lsn'")" = t ] && return 0
        sleep 0.05
    done
    die "the replica did not catch up with $lsn"
}
