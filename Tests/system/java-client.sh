# java-client.sh: the Android team's path (docs/android.md). docs/openapi.json fed to
# openapi-generator's Java generator (zero warnings but the two any 3.1 document gets, as in
# generated-clients.sh), compiled by javac against Debian's jars only, and a hand-written journey
# (Tests/system/java/Journey.java) run with it against the real server: two people sign up, one
# runs a session and buys an item, asks the other by email, who accepts. Sourced by scripts/test
# after generated-clients.sh (generator_warnings), with $server and $dir set; the tools are
# scripts/setup's (.venv: openapi-generator-cli with its bundled jar; Debian: a JDK, the jars
# below). Nothing is downloaded when it runs.
#
# The generator's options, and why (what Debian 12 has decides; docs/android.md):
#   library=native        java.net.http (the JDK's) and Jackson; okhttp-gson, Android's usual
#                         pick, needs gson-fire and okhttp 4, which Debian lacks (it has okhttp 3.13)
#   dateLibrary=legacy    times as java.util.Date, which jackson-databind reads by itself; every
#                         Jackson library of the generator also registers jackson-datatype-jsr310's
#                         JavaTimeModule, which Debian does not package, so those lines and the two
#                         RFC3339 classes built on it are taken out after generating (java_client_patch,
#                         which fails if the generator's output no longer has them as expected)
#   openApiNullable=false no jackson-databind-nullable (not in Debian): a nullable member is a
#                         plain reference, null when absent or null
#   annotationLibrary=none no swagger annotations (not in Debian)
#   useJakartaEe=true     @jakarta.annotation.Nullable/Nonnull/Generated, from Debian's
#                         libjakarta-annotation-api-java (javax.annotation's are not packaged)
#   useOneOfDiscriminatorLookup=true  a oneOf answer is read by its discriminator (`kind`):
#                         without it the native library counts the shapes an answer fits and
#                         refuses more than one, and since Jackson ignores unknown members and
#                         does not enforce `required`, every answer of the three unions fits both
#   hideGenerationTimestamp=true  the same document generates the same bytes
# The generated sources and classes are not committed: they live in
# .build/generated-clients/java/<key>/ (ignored), <key> a hash of the document, the generator's
# version, these options, this file and the jars, so a warm run with the same document
# neither generates nor compiles the client again (cold: 111 to 136 s generating and compiling
# on the shared 2-core machine under load, 2026-12-07, in the background beside pgTAP; the
# journey's own javac is cached by its hash the same way).
# shellcheck shell=bash
# shellcheck disable=SC2154 # $dir, $server, $base_url are scripts/test's and serve_in_background's

JAVA_CLIENT_OPTIONS=library=native,dateLibrary=legacy,openApiNullable=false,annotationLibrary=none,useJakartaEe=true,useOneOfDiscriminatorLookup=true,hideGenerationTimestamp=true,invokerPackage=focusisland.client,apiPackage=focusisland.client.api,modelPackage=focusisland.client.model
# Debian's jars (scripts/setup installs them): jackson-databind, -core and -annotations, and the
# jakarta annotations.
JAVA_CLIENT_JARS=(/usr/share/java/jackson-databind.jar /usr/share/java/jackson-core.jar
                  /usr/share/java/jackson-annotations.jar /usr/share/java/jakarta-annotation-api.jar)

java_client_classpath() { local IFS=:; printf '%s' "${JAVA_CLIENT_JARS[*]}"; }

# java_client_key: what the generated classes depend on, hashed (the generator's version by its
# wheel's folder, the JDK's and the jars' by their real paths: no JVM started to ask).
java_client_key() {
    {
        cat "$ROOT/docs/openapi.json" "$ROOT/Tests/system/java-client.sh"
        echo "$ROOT"/.venv/lib/python3*/site-packages/openapi_generator_cli-*.dist-info "$JAVA_CLIENT_OPTIONS"
        readlink -f "${JAVA_CLIENT_JARS[@]}" "$(command -v javac)"
    } | sha256sum | cut -c1-16
}

# java_client_patch SRC: the generated sources without jackson-datatype-jsr310 (see above).
java_client_patch() {
    python3 - "$1" <<'PY'
import sys
from pathlib import Path
base = Path(sys.argv[1]) / "src/main/java/focusisland/client"
for name in ("RFC3339InstantDeserializer.java", "RFC3339JavaTimeModule.java"):
    (base / name).unlink()
cuts = {
    "ApiClient.java": ["import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;",
                       "mapper.registerModule(new JavaTimeModule());",
                       "mapper.registerModule(new RFC3339JavaTimeModule());"],
    "JSON.java": ["import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;", ".addModule(new JavaTimeModule())"],
}
for name, lines in cuts.items():
    path = base / name
    text = path.read_text().splitlines(keepends=True)
    for line in lines:
        found = [i for i, l in enumerate(text) if l.strip() == line]
        if len(found) != 1:
            sys.exit(f"java-client: {name} has {len(found)} lines '{line}', not 1: the generator changed, revisit java_client_patch")
        del text[found[0]]
    path.write_text("".join(text))
left = [str(p) for p in base.rglob("*.java") if "jsr310" in p.read_text()]
if left:
    sys.exit("java-client: jsr310 is still imported by " + ", ".join(left))
PY
}

# java_client_dir: the cache folder of this document's client (classes/, journey-<hash>/).
java_client_dir() { printf '%s/.build/generated-clients/java/%s' "$ROOT" "$(java_client_key)"; }
# java_journey_dir: the journey's classes, in it, by the journey's own hash.
java_journey_dir() { printf '%s/journey-%s' "$(java_client_dir)" "$(sha256sum <"$ROOT/Tests/system/java/Journey.java" | cut -c1-16)"; }

# java_client_build: generate, patch and compile into the cache unless the key's classes are
# there already, then the journey (cached by its own hash); prints only its check lines.
java_client_build() {
    local out journey
    out=$(java_client_dir)
    if [ -f "$out/built" ]; then
        check "openapi-generator java (native), javac against Debian's jars" "cached (${out##*/})"
    else
        java_client_generate "$out"
    fi
    journey=$(java_journey_dir)
    if [ ! -f "$journey/Journey.class" ]; then
        rm -rf "$out"/journey-* && mkdir -p "$journey.tmp"
        javac -encoding UTF-8 --release 17 -cp "$out/classes:$(java_client_classpath)" -d "$journey.tmp" \
            "$ROOT/Tests/system/java/Journey.java" || die "javac could not compile Tests/system/java/Journey.java"
        mv "$journey.tmp" "$journey"
    fi
}

# java_client_generate OUT: the client generated into OUT/generated, patched, compiled into OUT/classes.
java_client_generate() {
    local out=$1 gen=$ROOT/.venv/bin/openapi-generator-cli warnings started=$SECONDS
    rm -rf "${out%/*}" && mkdir -p "$out"
    "$gen" generate -i "$ROOT/docs/openapi.json" -g java -o "$out/generated" --additional-properties="$JAVA_CLIENT_OPTIONS" \
        >"$out/generate.log" 2>&1 || { cat "$out/generate.log"; die "openapi-generator java failed"; }
    warnings=$(generator_warnings "$out/generate.log")
    [ -z "$warnings" ] || { echo "$warnings"; die "openapi-generator java warned"; }
    java_client_patch "$out/generated" || die "the generated Java client could not be patched"
    find "$out/generated/src/main/java" -name '*.java' >"$out/sources"
    javac -nowarn -encoding UTF-8 --release 17 -cp "$(java_client_classpath)" -d "$out/classes" "@$out/sources" \
        >"$out/javac.log" 2>&1 || { head -50 "$out/javac.log"; die "javac could not compile the generated Java client"; }
    touch "$out/built"
    check "openapi-generator java (native), 0 warnings; javac against Debian's jars" \
        "$(wc -l <"$out/sources") Java files, $((SECONDS - started)) s"
}

# java_client_start: java_client_build in the background (a JVM, mostly CPU, beside pgTAP).
java_client_start() {
    (java_client_build) >"$dir/java-client-build.log" 2>&1 &
    java_client_pid=$!
}

# java_client_check: wait for the build (or build), then run the journey against the server.
java_client_check() {
    if [ -n "${java_client_pid:-}" ]; then
        wait "$java_client_pid" || { cat "$dir/java-client-build.log"; die "the Java client could not be built"; }
        cat "$dir/java-client-build.log"
    else
        java_client_build
    fi
    say "the Java journey (Tests/system/java/Journey.java) against the real server"
    serve_in_background "$dir/java-client-server.log"
    java -cp "$(java_journey_dir):$(java_client_dir)/classes:$(java_client_classpath)" Journey "$base_url" "$MIGRATION_DATABASE_URL" \
        || { server_stop; die "the Java journey failed (server log: $dir/java-client-server.log)"; }
    server_stop
}
