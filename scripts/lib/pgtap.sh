# pgtap.sh: pgTAP at the real clock and at the edge clocks, in parallel streams (docs/testing.md).
# Sourced by scripts/test after common.sh, with $dir set and the test helpers loaded into
# focus_island.
# shellcheck shell=bash
# shellcheck disable=SC2154 # $dir is scripts/test's

# Two streams (the machine's two cores): each its own copy of the database, so files never wait
# on each other's rows or locks (the events' commit-order lock, a unique email) the way two
# transactions in one database would. Round-robin by name splits the files' time about evenly.
PGTAP_STREAMS=${PGTAP_STREAMS:-2}

# pgtap_prepare: the streams' databases, copied from focus_island (migrated, seeded, helpers
# loaded; nothing else may be connected to it while it is copied) with its owner (who alone may
# use schema public) and its settings (timezone), which a copy does not take along.
pgtap_prepare() {
    local n
    for ((n = 2; n <= PGTAP_STREAMS; n++)); do
        psql -X -q -v ON_ERROR_STOP=1 -v copy="focus_island_pgtap_$n" "$(cluster_url "$dir" postgres postgres)" >/dev/null <<'SQL'
set client_min_messages = warning;
drop database if exists :"copy";
select format('create database %I template focus_island owner %I', :'copy', pg_get_userbyid(datdba))
from pg_database where datname = 'focus_island' \gexec
select format('alter %s set %I = %L',
              case when s.setrole = 0 then format('database %I', :'copy')
                   else format('role %I in database %I', pg_get_userbyid(s.setrole), :'copy') end,
              split_part(c, '=', 1), substr(c, strpos(c, '=') + 1))
from pg_db_role_setting s cross join unnest(s.setconfig) c
where s.setdatabase = (select oid from pg_database where datname = 'focus_island') \gexec
SQL
    done
}

pgtap_database() { if [ "$1" = 1 ]; then echo focus_island; else echo "focus_island_pgtap_$1"; fi; }

# pgtap_finish: drops the streams' databases.
pgtap_finish() {
    local n
    for ((n = 2; n <= PGTAP_STREAMS; n++)); do
        psql -X -q "$(cluster_url "$dir" postgres postgres)" -c "drop database if exists focus_island_pgtap_$n" >/dev/null
    done
}

# pgtap_run LABEL FILE...: the files, split over the streams, each stream one pg_prove; prints
# what is not ok, fails when a stream does not pass, adds the tests run to tests_passed and the
# files run to pgtap_files_run.
pgtap_run() {
    local label=$1 n i pids=() logs=() status=0
    shift
    # The files that wait for the events' horizon (test.horizon_passes: no transaction of the
    # cluster older than their writes still running) all go to the first stream, one after the
    # other. Every pgTAP file's transaction holds the horizon while it runs (plan() takes a
    # transaction id), so two of them in two streams at once each waited for the other's end
    # until both gave up.
    local files=() waiting=() file
    for file in "$@"; do
        if grep -q 'test\.horizon_passes(' "$file"; then waiting+=("$file"); else files+=("$file"); fi
    done
    for ((n = 1; n <= PGTAP_STREAMS; n++)); do
        local part=()
        [ "$n" != 1 ] || part+=("${waiting[@]}")
        for ((i = n - 1; i < ${#files[@]}; i += PGTAP_STREAMS)); do part+=("${files[i]}"); done
        [ ${#part[@]} -gt 0 ] || continue
        logs+=("$dir/pg_prove-$label-$n.log")
        # A hang (a deadlock the moved clock kept PostgreSQL from detecting, once) must fail, not
        # wait out CI's limit: every run has a deadline far above its normal time.
        timeout 300 pg_prove --host "$dir" --port "$PG_PORT" --username postgres --dbname "$(pgtap_database "$n")" \
            "${part[@]}" >"$dir/pg_prove-$label-$n.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[i]}" || status=1; done
    for log in "${logs[@]}"; do
        grep -v -e '^ok ' -e '^\S*\.sql \.* ok$' -e '^All tests successful' -e '^Files=' -e '^Result: PASS' "$log" || true
        grep -q '^Result: PASS' "$log" || status=1
        tests_passed=$((tests_passed + $(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$log")))
        pgtap_files_run=$((pgtap_files_run + $(sed -n 's/^Files=\([0-9]*\),.*/\1/p' "$log")))
    done
    [ "$status" = 0 ] || die "pgTAP failed at the clock above (logs: ${logs[*]})"
    echo "  $(( ${#files[@]} + ${#waiting[@]} )) files in ${#logs[@]} streams, $(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "${logs[@]}" |
        awk '{ sum += $1 } END { print sum + 0 }') tests passed"
}
