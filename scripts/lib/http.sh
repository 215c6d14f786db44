# http.sh: HTTP helpers for the checks that talk to the real server binary (fault, event,
# replica and CLI checks). Sourced, after common.sh; the caller has set $dir (the cluster's
# folder, where logs and scratch files go) and, once serve_in_background ran, $base_url.
# shellcheck shell=bash disable=SC2154 # dir and base_url are set by the caller and serve_in_background

# server_log NAME: where a check's server writes its log ($dir/server-NAME.log).
server_log() { printf '%s/server-%s.log' "$dir" "$1"; }

now_ms() { date +%s%3N; }

# http METHOD PATH [TOKEN [BODY]]: prints "STATUS CODE RETRY_AFTER" of one request (10 s at most).
http() {
    local headers body
    headers=$(mktemp "$dir/headers.XXXXXX") body=$(mktemp "$dir/body.XXXXXX")
    local status
    status=$(curl -s -o "$body" -D "$headers" -w '%{http_code}' --max-time 10 -X "$1" "$base_url$2" \
        ${3:+-H "Authorization: Bearer $3"} ${4:+-H 'Content-Type: application/json' --data "$4"}) || status=000
    printf '%s %s %s\n' "$status" \
        "$(sed -n 's/.*"code":"\([a-z_]*\)".*/\1/p' "$body")" \
        "$(tr -d '\r' <"$headers" | sed -n 's/^[Rr]etry-[Aa]fter: *//p')"
    rm -f "$headers" "$body"
}

# A new account over HTTP; prints "USER_ID TOKEN".
new_account() {
    curl -sf -X POST "$base_url/auth/register" -H 'Content-Type: application/json' \
        -d "{\"email\":\"fault-$RANDOM$RANDOM@example.com\",\"password\":\"correct horse\",\"display_name\":\"Fault\"}" \
        | sed -n 's/.*"user": {"id": "\([^"]*\)".*"token": "\([^"]*\)".*/\1 \2/p'
}
