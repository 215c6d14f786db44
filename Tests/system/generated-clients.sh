# generated-clients.sh: docs/openapi.json fed to three standard generators, as an app developer
# would, each with zero warnings, and each generated client decoding real answers of the server
# plus three mutated ones (Tests/system/generated-clients.py). Sourced by scripts/test with
# $server and $dir set; the tools are scripts/setup's (.venv: openapi-python-client,
# openapi-generator-cli with its bundled jar; Debian: a JRE, node-typescript). Nothing is
# downloaded when it runs.
#   openapi-python-client --fail-on-warning, with Tests/system/openapi-python-client.json: image
#       bodies (PUT /me/avatar, GET /users/{id}/avatar) read as application/octet-stream, which
#       it supports; no post hooks (ruff is not installed)
#   openapi-generator swift6 (enumUnknownDefaultCase; identifiableModels=false, because it declares
#       the Event union, an enum, Identifiable without an `id`), built with swift build, a decoder beside it
#   openapi-generator typescript-fetch, compiled by tsc --strict, the decoder run by node; with
#       --suppressImplicitAnyIndexErrors, because its instanceOf checks (`'id' in value` on an
#       `object`) rely on TypeScript 4.9's narrowing and Debian 12's node-typescript is 4.8
# openapi-generator prints two warnings for any OpenAPI 3.1 document, about itself, not the
# document: "OpenAPI 3.1 support is still in beta" and ModelUtils' "Failed to get the schema
# name: null" (it prints it for the 1.0 document too, and for none of ours it can name); those
# two lines are left out of the count, every other WARN fails.
# The generated Swift and TypeScript packages live in .build/generated-clients/ (rewritten only
# where a file changed), so a warm run rebuilds only what the document changed.
# shellcheck shell=bash
# shellcheck disable=SC2154 # $dir, $server, $base_url are scripts/test's and serve_in_background's

generated_clients_dir() { printf '%s/.build/generated-clients' "$ROOT"; }

# generator_warnings LOG: openapi-generator's WARN lines, less the two it prints for any 3.1 document.
generator_warnings() {
    grep ' WARN ' "$1" | grep -v -e 'OpenAPI 3.1 support is still in beta' -e 'Failed to get the schema name: null' || true
}

# sync_tree FROM TO: TO becomes FROM, rewriting only files whose bytes differ (mtimes kept for swift build).
sync_tree() {
    python3 - "$1" "$2" <<'PY'
import shutil, sys
from pathlib import Path
source, target = Path(sys.argv[1]), Path(sys.argv[2])
wanted = {p.relative_to(source) for p in source.rglob("*") if p.is_file()}
for relative in wanted:
    to = target / relative
    if not to.exists() or to.read_bytes() != (source / relative).read_bytes():
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / relative, to)
for existing in [p for p in target.rglob("*") if p.is_file() and ".build" not in p.parts and "out" not in p.parts]:
    if existing.relative_to(target) not in wanted:
        existing.unlink()
PY
}

# generate_swift6: the swift6 client and its decoder, generated (warnings fail), then built in
# the background (the costly part); wait for $swift6_pid, then run $swift6_decoder.
generated_clients_generate() {
    local out gen=$ROOT/.venv/bin/openapi-generator-cli warnings
    out=$(generated_clients_dir)
    mkdir -p "$out" "$dir/generated"
    say "generated clients: openapi-python-client, openapi-generator swift6 and typescript-fetch, from docs/openapi.json"
    rm -rf "$dir/generated/py"
    mkdir -p "$dir/generated/py"
    (cd "$dir/generated/py" && "$ROOT/.venv/bin/openapi-python-client" generate --path "$ROOT/docs/openapi.json" \
        --output-path focus_island_client --meta none --config "$ROOT/Tests/system/openapi-python-client.json" \
        --fail-on-warning) >"$dir/generated/py.log" 2>&1 || { cat "$dir/generated/py.log"; die "openapi-python-client warned or failed"; }
    check "openapi-python-client --fail-on-warning" "0 warnings, $(find "$dir/generated/py/focus_island_client/models" -name '*.py' | wc -l) model files"

    "$gen" generate -i "$ROOT/docs/openapi.json" -g swift6 -o "$dir/generated/swift6" \
        --additional-properties=projectName=FocusIslandAPI,enumUnknownDefaultCase=true,identifiableModels=false >"$dir/generated/swift6.log" 2>&1 \
        || { cat "$dir/generated/swift6.log"; die "openapi-generator swift6 failed"; }
    warnings=$(generator_warnings "$dir/generated/swift6.log")
    [ -z "$warnings" ] || { echo "$warnings"; die "openapi-generator swift6 warned"; }
    check "openapi-generator swift6" "0 warnings, $(find "$dir/generated/swift6/Sources" -name '*.swift' | wc -l) Swift files"

    "$gen" generate -i "$ROOT/docs/openapi.json" -g typescript-fetch -o "$dir/generated/ts" >"$dir/generated/ts.log" 2>&1 \
        || { cat "$dir/generated/ts.log"; die "openapi-generator typescript-fetch failed"; }
    warnings=$(generator_warnings "$dir/generated/ts.log")
    [ -z "$warnings" ] || { echo "$warnings"; die "openapi-generator typescript-fetch warned"; }
    check "openapi-generator typescript-fetch" "0 warnings, $(find "$dir/generated/ts" -name '*.ts' | wc -l) TypeScript files"
}

# generated_clients_start: the generators in the background (a JVM and Python, mostly CPU, while
# pgTAP mostly waits for PostgreSQL), their lines kept for generated_clients_check to print.
generated_clients_start() {
    (generated_clients_generate) >"$dir/generated-clients-generate.log" 2>&1 &
    generated_clients_pid=$!
}

# generated_clients_check: generate (or wait for generated_clients_start), record real answers
# from the server, decode them with each.
generated_clients_check() {
    local out answers=$dir/generated/answers status=0 tsc_out
    out=$(generated_clients_dir)
    if [ -n "${generated_clients_pid:-}" ]; then
        wait "$generated_clients_pid" || { cat "$dir/generated-clients-generate.log"; die "a generator failed"; }
        cat "$dir/generated-clients-generate.log"
    else
        generated_clients_generate
    fi

    serve_in_background "$dir/generated-clients-server.log"
    python3 "$ROOT/Tests/system/generated-clients.py" record "$base_url" "$answers" "$MIGRATION_DATABASE_URL" || { server_stop; die "could not record answers"; }
    server_stop
    python3 "$ROOT/scripts/lib/contract.py" strict >"$dir/generated/openapi-strict.json"
    "$ROOT/.venv/bin/python" "$ROOT/Tests/system/generated-clients.py" validate "$ROOT/docs/openapi.json" \
        "$dir/generated/openapi-strict.json" "$answers" || die "an answer and its schema disagree"

    # swift6: the generated package plus a decoder target, built in the background beside the others.
    python3 "$ROOT/Tests/system/generated-clients.py" swift-driver "$answers" >"$dir/generated/main.swift"
    mkdir -p "$dir/generated/swift6/Sources/Decode"
    cp "$dir/generated/main.swift" "$dir/generated/swift6/Sources/Decode/main.swift"
    python3 - "$dir/generated/swift6/Package.swift" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
text = text.replace('''        .target(
            name: "FocusIslandAPI",''', '''        .executableTarget(name: "Decode", dependencies: ["FocusIslandAPI"], path: "Sources/Decode"),
        .target(
            name: "FocusIslandAPI",''')
open(path, "w").write(text)
PY
    sync_tree "$dir/generated/swift6" "$out/swift6"
    (cd "$out/swift6" && timeout 600 swift build --product Decode >"$dir/generated/swift6-build.log" 2>&1) &
    local swift_pid=$!

    "$ROOT/.venv/bin/python" "$ROOT/Tests/system/generated-clients.py" python "$dir/generated/py/focus_island_client" "$answers" || status=1

    python3 "$ROOT/Tests/system/generated-clients.py" ts-driver "$answers" >"$dir/generated/ts/decode.ts"
    sync_tree "$dir/generated/ts" "$out/ts"
    tsc_out=$(cd "$out/ts" && tsc --strict --suppressImplicitAnyIndexErrors --target es2019 --module commonjs --lib es2019,dom --outDir out decode.ts 2>&1) \
        || { echo "$tsc_out"; die "tsc --strict found errors in the generated TypeScript client"; }
    check "tsc --strict --suppressImplicitAnyIndexErrors (node-typescript $(tsc --version | cut -d' ' -f2))" "0 errors"
    node "$out/ts/out/decode.js" "$answers" || status=1

    wait "$swift_pid" || { grep -E 'error' "$dir/generated/swift6-build.log" | head -30; die "swift build of the generated swift6 client failed"; }
    check "swift build of the swift6 client and its decoder" "built"
    "$out/swift6/.build/debug/Decode" "$answers" || status=1
    [ "$status" = 0 ] || die "a generated client could not decode what the versioning rule says it must"
    say "generated clients: each decodes the real answers and the three mutated ones"
}
