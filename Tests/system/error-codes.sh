# error-codes.sh: every code SQL raises (api.fail / api.problem with a literal code, and
# invalid_field from api.fail_field) must be listed in docs/errors.md. Sourced by scripts/test.
# shellcheck shell=bash

error_codes_documented() {
    local missing
    missing=$( { grep -ohE "api\.(fail|problem)\([0-9]+, '[a-z_]+'" "$ROOT"/sql/api/*.sql | sed -E "s/.*'([a-z_]+)'/\1/"
                 grep -q "api.fail_field(" "$ROOT"/sql/api/*.sql && echo invalid_field; } | sort -u \
               | while read -r code; do grep -q "^| \`$code\` |" "$ROOT/docs/errors.md" || echo "$code"; done)
    if [ -n "$missing" ]; then
        die "error codes raised in sql/api but missing from docs/errors.md: ${missing//$'\n'/ }"
    fi
    say "every error code raised in sql/api is listed in docs/errors.md"
}
