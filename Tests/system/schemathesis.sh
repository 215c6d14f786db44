# schemathesis.sh: the real server against docs/openapi.json's strict copy, with schemathesis (installed by
# scripts/setup in .venv/): every check, a registered user's token, deterministic generation,
# bounded in time. Sourced by scripts/test after the Swift tests, with $server, $dir and the
# database URLs set.
# shellcheck shell=bash
# shellcheck disable=SC2154 # $dir, $server and $base_url are scripts/test's and serve_in_background's

# Operations left out, because they would end the run's own token or account: logout and
# DELETE /me/tokens/{id} revoke it (schemathesis finds the token's id in GET /me/tokens),
# DELETE /me deletes the account and POST /me/password revokes the others. Social sign-in
# (POST /auth/apple, /auth/google, /me/identities) needs an ID token a provider signed, which no
# schema can make, and the run's server has no provider configured (503
# sign_in_provider_unavailable). What they answer is covered by the Swift HTTP tests
# (SocialSignInHTTPTests, against a local provider); everything else runs.
schemathesis_excluded=(auth_logout me_tokens_delete me_delete me_password_update auth_apple_login auth_google_login
    me_identities_create)

schemathesis_check() {
    local st=${SCHEMATHESIS:-$ROOT/.venv/bin/schemathesis} log=$dir/schemathesis.log token status=0
    [ -x "$st" ] || die "schemathesis is not installed in $ROOT/.venv; run scripts/setup"
    serve_in_background "$dir/schemathesis-server.log"
    token=$(curl -sf -X POST "$base_url/auth/register" -H 'Content-Type: application/json' \
        -d '{"email":"schemathesis-'"$(date +%s%N)"'@example.com","password":"correct horse","display_name":"Fuzz"}' \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])') || { server_stop; die "could not register the fuzzing user"; }
    local exclude=()
    for operation in "${schemathesis_excluded[@]}"; do exclude+=(--exclude-operation-id "$operation"); done
    # Deterministic (the same cases every run), one worker, 10 examples per operation and phase
    # (20 took 35 s on the 2-core machine, and its workers are threads under Python's one lock, so
    # two were no faster). timeout is the hard bound if the server hangs.
    # Run in the test's folder: schemathesis keeps a cache (.schemathesis/) where it runs.
    # The strict copy of the document (scripts/lib/contract.py strict): the published one is open
    # for clients (docs/versioning.md); this one says exactly what today's server sends, so a
    # field, enum value or problem code the document lacks still fails here.
    python3 "$ROOT/scripts/lib/contract.py" strict >"$dir/openapi-strict.json"
    # SCHEMATHESIS_RANDOM=N (scripts/chaos --fuzz): random generation instead, N examples per
    # operation and phase, a new seed each run (schemathesis prints it, to replay a failure;
    # SCHEMATHESIS_SEED=S replays it).
    local generation=(--generation-deterministic --max-examples 10) bound=240 document=$dir/openapi-strict.json
    if [ -n "${SCHEMATHESIS_RANDOM:-}" ]; then generation=(--max-examples "$SCHEMATHESIS_RANDOM") bound=1800; fi
    if [ -n "${SCHEMATHESIS_SEED:-}" ]; then generation+=(--seed "$SCHEMATHESIS_SEED"); fi
    # SCHEMATHESIS_DOCUMENT=served (scripts/chaos --fuzz-served): the published document as the
    # server serves it (GET /openapi.json) instead of the strict copy: what a client's tools read,
    # Idempotency-Key included, sent as a client sends it, a new key per request
    # (Tests/system/schemathesis_hooks.py).
    local hooks=()
    if [ "${SCHEMATHESIS_DOCUMENT:-strict}" = served ]; then
        document=$base_url/openapi.json
        hooks=(env "PYTHONPATH=$ROOT/Tests/system" SCHEMATHESIS_HOOKS=schemathesis_hooks)
    fi
    (cd "$dir" && timeout "$bound" "${hooks[@]}" "$st" --config-file "$ROOT/Tests/system/schemathesis.toml" run "$document" \
        --url "$base_url" -H "Authorization: Bearer $token" --checks all "${exclude[@]}" \
        "${generation[@]}" --workers 1 --request-timeout 10 --no-color) >"$log" 2>&1 || status=$?
    server_stop
    if [ "$status" != 0 ]; then
        sed -n '/^=* FAILURES/,$p' "$log" | cut -c1-400 | head -n 150
        die "schemathesis found answers that break docs/openapi.json (full log: $log)"
    fi
    grep -E '^  Tested:|[0-9]+ generated|^=+ .* in [0-9.]+s' "$log" | sed 's/^ */  /'
    say "schemathesis: every check passed against the real server (${#schemathesis_excluded[@]} operations excluded: ${schemathesis_excluded[*]})"
}
