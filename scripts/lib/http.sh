# http.sh: HTTP helpers for the checks that talk to the real server binary (fault, event,
# replica and CLI checks). Sourced, after common.sh; the caller has set $dir (the cluster's
# folder, where logs and scratch files go) and, once serve_in_background ran, $base_url.
# shellcheck shell=bash disable=SC2154 # dir and base_url are set by the caller and serve_in_background

# server_log NAME: where a check's server writes its log ($dir/server-NAME.log).
server_log() { printf '%s/server-%s.log' "$dir" "$1"; }

now_ms() { date +%s%3N; }

# http METHOD PATH [TOKEN [BODY]]: prints "STATUS CODE RETRY_AFTER" of one request (10 s at
# most; STATUS 000 without an answer, CODE the problem's code), by Tests/system/checks.py.
http() { python3 "$ROOT/Tests/system/checks.py" request "$1" "$base_url$2" "${3:-}" "${4:-}"; }

# http_status METHOD PATH [TOKEN [BODY]]: only the status of one request (000 without an
# answer), by curl: for the load loops, which send many and read nothing else.
http_status() {
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 -X "$1" "$base_url$2" \
        ${3:+-H "Authorization: Bearer $3"} ${4:+-H 'Content-Type: application/json' --data "$4"} || true
}

# A new account over HTTP; prints "USER_ID TOKEN".
new_account() { python3 "$ROOT/Tests/system/checks.py" account "$base_url" fault; }
