# shellcheck shell=bash disable=SC2154 # dir and server are set by scripts/test, base_url by common.sh
# mail-checks.sh: `focus-island mail` against aiosmtpd on loopback, with STARTTLS and AUTH
# (sourced by scripts/test, which has started the cluster in $dir and built $server). The checks
# themselves are in mail-checks.py: a reset mail received and its code working, a 550 recorded
# and not retried, a 451 queued for later, two senders at once delivering each mail once.

# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"

mail_checks() {
    say "mail checks (the real server and sender binaries, aiosmtpd on loopback)"
    local python=$ROOT/.venv/bin/python3 status=0
    [ -x "$python" ] || die "aiosmtpd is not installed in $ROOT/.venv; run scripts/setup"
    serve_in_background "$(server_log mail)"
    mkdir -p "$dir/mail-checks"
    (cd "$ROOT" && "$python" "$ROOT/Tests/system/mail-checks.py" "$server" "$base_url" \
        "$(cluster_url "$dir" focus_owner)" "$dir/mail-checks") || status=$?
    server_stop
    [ "$status" = 0 ] || die "the mail checks failed"
}
