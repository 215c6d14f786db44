# shellcheck shell=bash disable=SC2154 # dir and server are set by scripts/test, base_url by common.sh
# replica-checks.sh: READ_DATABASE_URL against a real streaming replica of the test cluster
# (pg_basebackup -R, scripts/lib/replica.sh), with the real binary (sourced by scripts/test,
# which has started the cluster in $dir and built $server):
#   1. a user's own routes (register, /me, a purchase, their items) never touch the replica,
#      so what a user just wrote is what they read;
#   2. the shared reads (catalog, tip sync, the global board) are answered by the replica;
#   3. the replica stopped: the global board answers 503 database_unavailable with Retry-After,
#      the user's own routes still 200; started again: 200, without a server restart.
# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"
# shellcheck source=../../scripts/lib/replica.sh
source "$ROOT/scripts/lib/replica.sh"

replica_checks() {
    say "replica checks (the real server binary, READ_DATABASE_URL on a streaming replica)"
    replica_start "$dir"
    replica_wait "$dir"
    replica_sessions() {
        psql -X -At "$(replica_url "$dir" postgres)" -c "select count(*) from pg_stat_activity where usename = 'focus_api'"
    }
    local user token item sync='{"known_ids":[]}'
    serve_in_background "$(server_log replica)" READ_DATABASE_URL="$(replica_url "$dir" focus_api)"
    item=$(psql -X -At "$(cluster_url "$dir" focus_owner)" -c "select id from app.shop_items where price > 0 and active order by price limit 1")

    # 1. A user's own routes, right after writing.
    read -r user token <<<"$(new_account)"
    psql -X -q -At "$(cluster_url "$dir" focus_owner)" -c "select app.grant_coins('$user', 1000, 'replica check')" >/dev/null
    local answers
    answers="$(http_status GET /me "$token") $(http_status PATCH /me "$token" '{"display_name":"Replica"}')"
    answers+=" $(http_status POST /shop/purchases "$token" "{\"item_id\":\"$item\"}") $(http_status GET /me/items "$token")"
    if [ "$answers" = "200 200 201 200" ] && [ "$(replica_sessions)" = 0 ]; then
        check "a user's own routes right after writing (/me, PATCH /me, a purchase, its items): $answers, none on the replica" ok
    else
        check "a user's own routes: '$answers', focus_api sessions on the replica: $(replica_sessions)" FAILED
        server_stop; replica_stop "$dir"; return 1
    fi
    if ! curl -sf -H "Authorization: Bearer $token" "$base_url/me/items" | grep -q "$item"; then
        check "the purchase is in GET /me/items at once" FAILED
        server_stop; replica_stop "$dir"; return 1
    fi

    # 2. The shared reads.
    answers="$(http_status GET /shop/items) $(http_status POST /sync/mindfulness-tips '' "$sync")"
    answers+=" $(http_status GET '/leaderboards/daily?scope=global' "$token")"
    if [ "$answers" = "200 200 200" ] && [ "$(replica_sessions)" -ge 1 ]; then
        check "catalog, tip sync and the global board: $answers, answered by the replica" ok
    else
        check "shared reads: '$answers', focus_api sessions on the replica: $(replica_sessions)" FAILED
        server_stop; replica_stop "$dir"; return 1
    fi

    # 3. The replica goes away and comes back (the global board: the catalog and tip sync may be
    # answered from the server's memory, which is the point of that cache).
    replica_stop "$dir"
    local board me
    board=$(http GET '/leaderboards/daily?scope=global' "$token") me=$(http_status GET /me "$token")
    if [ "$board" = "503 database_unavailable 1" ] && [ "$me" = 200 ]; then
        check "replica stopped: the global board '$board', GET /me $me (the primary serves on)" ok
    else
        check "replica stopped: the global board '$board', GET /me '$me'" FAILED
        server_stop; return 1
    fi
    replica_resume "$dir"
    local started=$SECONDS
    until [ "$(http_status GET '/leaderboards/daily?scope=global' "$token")" = 200 ]; do
        if [ $((SECONDS - started)) -gt 10 ]; then
            check "replica started again: the global board still fails after 10 s" FAILED
            server_stop; replica_stop "$dir"; return 1
        fi
        sleep 0.1
    done
    check "replica started again: the global board 200 after $((SECONDS - started)) s, no server restart" ok
    server_stop
    replica_stop "$dir"
}
