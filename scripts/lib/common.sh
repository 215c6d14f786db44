# common.sh: helpers shared by scripts/run, scripts/test and scripts/bench (sourced, not run).
# A local PostgreSQL cluster of the project's own: unix socket only (no TCP port to collide
# with a system cluster), trust authentication, data outside the checkout under /var/tmp
# (reachable by the postgres user even when the checkout's parents are private).
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PATH="$PATH:/opt/swift/usr/bin"
# The PostgreSQL major version, chosen here only: scripts/setup installs its packages
# (postgresql-$PG_MAJOR-pgtap, ...) and every script runs its server binaries.
PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
[ -x "$PG_BIN/postgres" ] || PG_BIN=""
PG_PORT=54329

# poll MS COMMAND...: runs COMMAND every 50 ms until it succeeds (0) or MS milliseconds have
# passed (1). What a script waits for is a condition with a deadline, never a fixed sleep.
poll() {
    local deadline
    deadline=$(( $(date +%s%3N) + $1 ))
    shift
    until "$@"; do
        [ "$(date +%s%3N)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# check WHAT RESULT: one line of a check list (migration checks, fault checks).
check() { printf '  %-92s %s\n' "$1" "$2"; }

# Runs a command as the cluster's owner: postgres when we are root (initdb refuses root).
as_cluster_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# A folder for this checkout's state, named after the checkout so two clones never share one.
state_dir() {
    local name hash
    name=$(basename "$ROOT" | tr -c 'A-Za-z0-9_\n-' '_')
    hash=$(printf '%s' "$ROOT" | sha1sum | cut -c1-8)
    printf '/var/tmp/focus-island-%s-%s-%s' "$(id -un)" "$name" "$hash"
}

# The postmaster's environment. With PG_FAKETIME set (libfaketime's syntax, e.g.
# '@2026-12-06 23:59:40': start there and run on) the cluster's clock is moved, so tests can run
# at the edges of days and weeks; every backend is forked from the postmaster and inherits it.
# pg_ctl runs under the same clock, since it compares the postmaster's start time with its own.
postmaster_env() {
    [ -n "${PG_FAKETIME:-}" ] || return 0
    local library
    library=$(dpkg -L libfaketime 2>/dev/null | grep '/libfaketime\.so\.1$' | head -n 1)
    [ -n "$library" ] || die "libfaketime is not installed; run scripts/setup"
    printf '%s\n' "LD_PRELOAD=$library" "FAKETIME=$PG_FAKETIME" "DONT_FAKE_MONOTONIC=1"
}

# Every cluster loads pg_stat_statements (2026-12-05), for report.slowest_statements; what it
# counts (track = all) is focus_island's own setting (sql/bootstrap.sql). The replica
# (replica.sh) and the HA formation (scripts/ha) load it too.
PG_STATEMENT_STATS="-c shared_preload_libraries=pg_stat_statements"

# cluster_start DIR: creates (once) and starts a cluster whose data and socket live in DIR. A
# cluster running from before PG_STATEMENT_STATS (its postmaster.opts lack it) is restarted.
cluster_start() {
    local dir=$1
    [ -n "$PG_BIN" ] || die "PostgreSQL $PG_MAJOR server binaries not found in /usr/lib/postgresql/$PG_MAJOR; run scripts/setup"
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        say "creating a PostgreSQL cluster in $dir/data"
        as_cluster_owner "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust \
            --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    fi
    if as_cluster_owner "$PG_BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 \
        && ! as_cluster_owner grep -q 'pg_stat_statements' "$dir/data/postmaster.opts"; then
        say "restarting the cluster in $dir to load pg_stat_statements"
        cluster_stop "$dir"
    fi
    if ! as_cluster_owner "$PG_BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        local clock=()
        mapfile -t clock < <(postmaster_env)
        as_cluster_owner env "${clock[@]}" "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start \
            -o "-c listen_addresses='' -c unix_socket_directories='$dir' -p $PG_PORT \
                -c unix_socket_permissions=0700 -c max_connections=200 -c shared_buffers=256MB \
                -c fsync=${PG_FSYNC:-on} $PG_STATEMENT_STATS" >/dev/null \
            || { tail -n 20 "$dir/postgres.log" >&2; die "PostgreSQL did not start"; }
    fi
}

# cluster_restart DIR: stops and starts the cluster, for example under another PG_FAKETIME.
cluster_restart() {
    cluster_stop "$1"
    cluster_start "$1"
}

# cluster_partitions_ahead DIR: the partitions job's step once (app.partitions_ensure_all), as
# the server's job runner does every 10 minutes: after its clock moved, the cluster has the days
# of its new "now" before a test writes a row. Else a row of now lands in the default partition,
# and a job's ATTACH in a test then waits for every transaction that wrote there. In every
# database of the product's on the cluster: the pgTAP streams' copies too (scripts/lib/pgtap.sh),
# which were copied once, before the clock moved.
cluster_partitions_ahead() {
    local database
    for database in $(psql -X -q -At "$(cluster_url "$1" focus_owner)" \
        -c "select datname from pg_database where datname ~ '^focus_island(_pgtap_[0-9]+)?$' order by 1"); do
        psql -X -q -At -v ON_ERROR_STOP=1 "$(cluster_url "$1" focus_owner "$database")" \
            -c "select app.partitions_ensure_all()" >/dev/null
    done
}

cluster_stop() {
    local dir=$1
    [ -f "$dir/data/PG_VERSION" ] || return 0
    as_cluster_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

# cluster_url DIR ROLE [DB]: a libpq URL for ROLE on the cluster in DIR.
cluster_url() {
    printf 'postgresql://%s@/%s?host=%s&port=%s' "$2" "${3:-focus_island}" "$1" "$PG_PORT"
}

# Creates the roles and the database (sql/bootstrap.sql), as the cluster's superuser.
cluster_bootstrap() {
    psql -X -q -v ON_ERROR_STOP=1 "$(cluster_url "$1" postgres postgres)" -f "$ROOT/sql/bootstrap.sql" >/dev/null
}

# throwaway_cluster NAME: a cluster of this run's own, in a fresh /var/tmp/focus-island-NAME-XXXXXX
# (sets dir): started (PG_FSYNC=off unless set: nothing in it outlives the run), bootstrapped,
# SQL_DIR, DATABASE_URL (focus_api) and MIGRATION_DATABASE_URL (focus_owner) exported. On exit
# it is stopped and removed, with the server, PgBouncer and the replica if they are running.
throwaway_cluster() {
    dir=$(mktemp -d "/var/tmp/focus-island-$1-XXXXXX")
    trap throwaway_cluster_remove EXIT
    export PG_FSYNC=${PG_FSYNC:-off}
    cluster_start "$dir"
    cluster_bootstrap "$dir"
    export SQL_DIR="$ROOT/sql"
    DATABASE_URL=$(cluster_url "$dir" focus_api)
    MIGRATION_DATABASE_URL=$(cluster_url "$dir" focus_owner)
    export DATABASE_URL MIGRATION_DATABASE_URL
}

# cluster_for_tests: what a cluster that only tests use changes after seeding. bcrypt at cost 4
# (the floor) instead of app.auth_settings' 10: the Swift suites make some 850 hashes a run
# (every sign-up and sign-in), about 60 ms of database CPU each at 10 and 1-2 ms at 4; pgTAP's
# helpers do the same in their own transactions. No test reads the cost (2026-12-01).
cluster_for_tests() {
    psql -X -q -v ON_ERROR_STOP=1 "$(cluster_url "$dir" postgres)" -c "update app.auth_settings set bcrypt_cost = 4"
}

throwaway_cluster_remove() {
    [ -z "${server_pid:-}" ] || server_stop
    if declare -F pgbouncer_stop >/dev/null; then pgbouncer_stop "$dir"; fi
    if declare -F replica_stop >/dev/null; then replica_stop "$dir"; fi
    cluster_stop "$dir"
    rm -rf "$dir"
}

# schema_dump DATABASE: the schema of DATABASE (a URL, or a database name on the cluster in
# $dir) as pg_dump --schema-only prints it, without comments and blank lines. The migration
# checks compare two of them; sql/schema.sql is one (scripts/lint --update-schema).
schema_dump() {
    local url=$1
    case "$url" in *://*) ;; *) url=$(cluster_url "$dir" postgres "$1") ;; esac
    # \restrict lines carry a random key per dump (pg_dump 15.14+): not part of the schema. The
    # api a migrate replaced is kept a while, renamed api_retired_<time> (docs/operations.md):
    # not part of it either, nor are the time partitions (<table>_part_<day>, _before, _default:
    # sql/app/160_partitions.sql), named after the day they were made and the data before.
    pg_dump --schema-only --no-comments --exclude-schema='api_retired_*' --exclude-table='app.*_part_*' -d "$url" | grep -v -e '^--' -e '^\\restrict' -e '^\\unrestrict' | sed '/^$/d'
}

# Builds the server (debug unless CONFIGURATION=release) and prints the binary's path.
build_server() {
    local configuration=${CONFIGURATION:-debug}
    (cd "$ROOT" && swift build -c "$configuration" --product focus-island >&2) || die "swift build failed"
    printf '%s/.build/%s/focus-island' "$ROOT" "$configuration"
}

# shellcheck disable=SC2154,SC2034 # reads the caller's $server; sets server_pid and base_url for it
# serve_in_background LOG [VAR=value ...]: runs $server on a free port (PORT=0, so it can never
# answer for another server on a taken port) with its log in LOG; sets server_pid and base_url
# once it listens.
serve_in_background() {
    local log=$1 port=""
    shift
    : >"$log"  # the background job may open it after the first read below (sed: can't read)
    env PORT=0 LOG_FORMAT="${LOG_FORMAT:-text}" "$@" "$server" serve >"$log" 2>&1 &
    server_pid=$!
    for _ in $(seq 200); do
        port=$(sed -n 's/.*listening on [^ ]*:\([0-9]*\) .*/\1/p' "$log")
        [ -n "$port" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05
    done
    [ -n "$port" ] || { cat "$log" >&2; die "the server did not start"; }
    base_url="http://127.0.0.1:$port"
}

server_stop() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
}
