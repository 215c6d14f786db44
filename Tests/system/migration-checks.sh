# migration-checks.sh: what CI checks about the migrations (sourced by scripts/test, which has
# started the cluster in $dir and built $server). Each check prints one line; any failure exits.
#   1. a second migrate of the test database applies nothing;
#   2. a database upgraded step by step from the first migration, with data added after each
#      step (sql/tests/upgrade/NNNN.sql), ends with the same schema as a fresh one;
#   3. a failing migration leaves the database exactly as it was.
# shellcheck shell=bash disable=SC2154 # dir and server are set by scripts/test

scratch_db() {
    psql -X -q -v ON_ERROR_STOP=1 "$(cluster_url "$dir" postgres postgres)" -c "create database $1 owner focus_owner"
    cluster_url "$dir" focus_owner "$1"
}

# A copy of sql/ holding migrations up to $2 (all when empty) and empty api/report/seed folders;
# from 0015 on (Migrator.appFunctionsFirstNeeded: migrations that bind triggers to functions
# defined only in sql/app) today's sql/app too, as a release carrying those migrations has it.
partial_sql() {
    local target=$1 upto=$2
    mkdir -p "$target/migrations" "$target/api" "$target/app" "$target/report" "$target/seed"
    if [ -z "$upto" ] || [ "$((10#$upto))" -ge 15 ]; then cp "$ROOT"/sql/app/*.sql "$target/app/"; fi
    for file in "$ROOT"/sql/migrations/*.sql; do
        if [ -z "$upto" ] || [ "$(basename "$file" | cut -d_ -f1)" \< "$upto" ] || \
           [ "$(basename "$file" | cut -d_ -f1)" = "$upto" ]; then
            cp "$file" "$target/migrations/"
        fi
    done
}

migration_checks() {
    say "migration checks"
    local out work="$dir/migration-checks"
    mkdir -p "$work"

    out=$(MIGRATION_DATABASE_URL=$(cluster_url "$dir" focus_owner) "$server" migrate 2>&1)
    case "$out" in *"nothing to apply"*) check "a second migrate applies nothing" ok ;;
                   *) check "a second migrate applies nothing" "FAILED: $out"; return 1 ;; esac

    # Every cluster the scripts start loads pg_stat_statements (common.sh), so that
    # report.slowest_statements has figures; sql/tests/report_statements.sql checks the view.
    local preload
    preload=$(psql -X -At "$(cluster_url "$dir" postgres)" -c "show shared_preload_libraries")
    case ",${preload// /}," in *,pg_stat_statements,*) check "the test cluster loads pg_stat_statements" ok ;;
                             *) check "the test cluster loads pg_stat_statements" "FAILED: '$preload'"; return 1 ;; esac

    MIGRATION_DATABASE_URL=$(scratch_db fresh_check) SQL_DIR="$ROOT/sql" "$server" migrate >/dev/null
    local upgrade_url version steps=0
    upgrade_url=$(scratch_db upgrade_check)
    for file in "$ROOT"/sql/migrations/*.sql; do
        version=$(basename "$file" | cut -d_ -f1)
        rm -rf "$work/step" && partial_sql "$work/step" "$version"
        # Today's sql/app stands in for each step's own, so a SQL function body may name a
        # table a later migration makes (app.user_sessions, 0055): bodies are checked by the
        # last migrate below, with every migration applied.
        PGOPTIONS='-c check_function_bodies=off' \
            MIGRATION_DATABASE_URL=$upgrade_url SQL_DIR="$work/step" "$server" migrate >/dev/null
        if [ -f "$ROOT/sql/tests/upgrade/$version.sql" ]; then
            psql -X -q -v ON_ERROR_STOP=1 "$upgrade_url" -f "$ROOT/sql/tests/upgrade/$version.sql" >/dev/null
        fi
        steps=$((steps + 1))
    done
    MIGRATION_DATABASE_URL=$upgrade_url SQL_DIR="$ROOT/sql" "$server" migrate >/dev/null
    if diff <(schema_dump fresh_check) <(schema_dump upgrade_check) >"$work/schema.diff"; then
        check "upgraded step by step ($steps steps, with data) = migrated fresh" ok
    else
        check "upgraded step by step = migrated fresh" "FAILED:"; head -n 40 "$work/schema.diff"; return 1
    fi
    local reconciliation
    reconciliation=$(psql -X -A -t "$upgrade_url" -c "select count(*) from report.ledger_reconciliation")
    if [ "$reconciliation" = 0 ]; then
        check "the upgraded data reconciles (ledger = balances)" ok
    else
        check "the upgraded data reconciles" "FAILED: $reconciliation rows"; return 1
    fi
    reconciliation=$(psql -X -A -t "$upgrade_url" -c "select count(*) from report.counter_reconciliation")
    if [ "$reconciliation" = 0 ]; then
        check "the upgraded data's counters (0012 rollup, 0013 counts and day totals) = a recount" ok
    else
        check "the upgraded data's counters = a recount" "FAILED: $reconciliation rows"; return 1
    fi

    rm -rf "$work/broken" && cp -r "$ROOT/sql" "$work/broken"
    printf 'create table app.half_done (id integer);\nselect 1 / 0;\n' >"$work/broken/migrations/9999_broken.sql"
    schema_dump fresh_check >"$work/before.sql"
    if MIGRATION_DATABASE_URL=$(cluster_url "$dir" focus_owner fresh_check) SQL_DIR="$work/broken" "$server" migrate >/dev/null 2>&1; then
        check "a failing migration is refused" "FAILED: it was applied"; return 1
    fi
    if diff "$work/before.sql" <(schema_dump fresh_check) >/dev/null; then
        check "a failing migration leaves the database as it was" ok
    else
        check "a failing migration leaves the database as it was" FAILED; return 1
    fi
}
