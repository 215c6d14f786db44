# pgbouncer.sh: starts Debian's PgBouncer (scripts/lib/pgbouncer.ini) in front of the cluster in
# DIR, as the cluster's owner (PgBouncer refuses to run as root). Sourced after common.sh.
# shellcheck shell=bash

PGBOUNCER_PORT=54330

# pgbouncer_start DIR [POOL_SIZE]: starts it (once) and waits until it answers.
pgbouncer_start() {
    local dir=$1 pool_size=${2:-8}
    command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || die "pgbouncer is not installed; run scripts/setup"
    mkdir -p "$dir/pgbouncer"
    sed -e "s|@DIR@|$dir|g" -e "s|@PG_PORT@|$PG_PORT|g" -e "s|@POOL_SIZE@|$pool_size|g" \
        "$ROOT/scripts/lib/pgbouncer.ini" >"$dir/pgbouncer/pgbouncer.ini"
    printf '"focus_api" ""\n"focus_owner" ""\n' >"$dir/pgbouncer/userlist.txt"
    if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir/pgbouncer"; fi
    as_cluster_owner /usr/sbin/pgbouncer -d -q "$dir/pgbouncer/pgbouncer.ini" \
        || { cat "$dir/pgbouncer/pgbouncer.log" >&2; die "PgBouncer did not start"; }
    for _ in $(seq 100); do
        psql -X -At "$(pgbouncer_url "$dir" focus_api)" -c 'select 1' >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    cat "$dir/pgbouncer/pgbouncer.log" >&2
    die "PgBouncer does not answer"
}

pgbouncer_stop() {
    local pid
    pid=$(cat "$1/pgbouncer/pgbouncer.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null || true
}

# pgbouncer_url DIR ROLE: a libpq URL for ROLE through PgBouncer.
pgbouncer_url() {
    printf 'postgresql://%s@/focus_island?host=%s/pgbouncer&port=%s' "$2" "$1" "$PGBOUNCER_PORT"
}
