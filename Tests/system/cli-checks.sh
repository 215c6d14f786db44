#!/usr/bin/env bash
# cli-checks.sh: the `focus` command line (Client/Sources/focus) end to end against the real
# server binary and the test cluster. Sourced by scripts/test after the event checks (which has
# started the cluster in $dir and built $server); each check prints one line, any failure exits.
#   1. two users, each with their own XDG_CONFIG_HOME, register; the token file is mode 0600; a
#      third registers from an address past its budget of 409 answers: a code is mailed first,
#      `focus register` without a terminal exits 6, and again with --code signs in; a fourth
#      starts as a guest (`focus guest`) and keeps the account with `focus upgrade EMAIL`;
#   2. Ada follows her events (`focus events --follow`, in the background, with a timeout) while
#      Bo asks her to be friends by email: the request arrives on her stream live;
#   3. Ada accepts by Bo's display name; both see the friendship;
#   4. Ada is granted coins, buys an item by its name, and her balance is the grant minus its
#      price (and the balance.changed events reach her stream); she writes a bio (`focus me bio`);
#      Bo's events as JSON lines, then nothing new on a second `focus events`;
#   5. a session started, finished (a stated end before its start refused first) and rated
#      through the CLI; a tagged one, the history in pages, stats per day and by tag; tips synced
#      twice (the second time nothing new); the catalog with --language es-MX (Spanish) and fr
#      (English); the server's config; a focus room opened with Bo invited, joined by its code,
#      started, and failed when Ada stops early (Bo's events and `focus room` show each step);
#      Ada's achievements with their progress, and what Bo sees of his friend's; a gift of coins
#      from Ada to Bo, seen waiting and accepted (Ada's events say so); Bo's streak freezes (two
#      at most) and a missed day one covers;
#   6. bad input: an unknown item, a wrong password, no token, an unknown command, each a clear
#      sentence on stderr and its documented non-zero exit status; logout forgets the token.
#
# Run on its own it makes the transcript of docs/cli-transcript.md on a throwaway cluster:
#   Tests/system/cli-checks.sh --transcript docs/cli-transcript.md
# shellcheck disable=SC2154 # dir, server, server_pid and base_url are set by scripts/test and common.sh
# shellcheck disable=SC2016 # the transcript's Markdown has backquotes in single-quoted text
# shellcheck source=../../scripts/lib/common.sh
declare -F cluster_url >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
# shellcheck source=../../scripts/lib/http.sh
source "$ROOT/scripts/lib/http.sh"  # now_ms

# cli_run USER ARGS...: runs `focus ARGS` as USER (their own config directory) with its output
# in $cli_out and its status in $cli_status; with a transcript, the command and what it printed
# (stdout and stderr, in order) go to the transcript too.
cli_run() {
    local user=$1
    shift
    cli_status=0
    cli_out=$(XDG_CONFIG_HOME="$cli_home/$user" FOCUS_URL="$base_url" FOCUS_PASSWORD=${CLI_PASSWORD:-correct horse} \
        "$focus" "$@" 2>&1) || cli_status=$?
    [ -n "${cli_transcript:-}" ] || return 0
    {
        printf '%s$ ' "$user"
        [ -z "${CLI_PASSWORD:-}" ] || printf 'FOCUS_PASSWORD=%q ' "$CLI_PASSWORD"
        printf 'focus'
        printf ' %q' "$@"
        printf '\n'
        [ -z "$cli_out" ] || printf '%s\n' "$cli_out"
        [ "$cli_status" = 0 ] || printf '(exit status %s)\n' "$cli_status"
        printf '\n'
    } >>"$cli_transcript"
}

# cli_note TEXT: a line of prose in the transcript, then a new console block for what follows.
cli_note() {
    [ -n "${cli_transcript:-}" ] || return 0
    cli_close
    printf '%s\n\n```console\n' "$1" >>"$cli_transcript"
    cli_block=open
}

# cli_close: ends the transcript's open console block, if any.
cli_close() {
    [ "${cli_block:-}" = open ] || return 0
    printf '```\n\n' >>"$cli_transcript"
    cli_block=closed
}

# cli_expect WHAT STATUS PATTERN: the last cli_run exited STATUS and printed PATTERN (grep -E).
cli_expect() {
    if [ "$cli_status" = "$2" ] && grep -qE -- "$3" <<<"$cli_out"; then
        check "$1" ok
    else
        check "$1: exit $cli_status, expected $2 and /$3/" FAILED
        printf '    %s\n' "$cli_out" >&2
        server_stop
        return 1
    fi
}

# cli_build: builds `focus` and prints its path. From the root package (which depends on
# Client/), so the library compiled for the Swift tests' client journeys is reused.
cli_build() {
    (cd "$ROOT" && swift build --product focus >&2) || die "swift build of focus failed"
    printf '%s/.build/debug/focus' "$ROOT"
}

cli_checks() {
    say "CLI checks (focus against the real server binary)"
    local focus cli_home="$dir/cli" cli_out cli_status suffix=""
    focus=$(cli_build)
    rm -rf "$cli_home"
    mkdir -p "$cli_home"
    # Fresh addresses in a cluster the other tests have used; the transcript's are plain.
    [ -n "${cli_transcript:-}" ] || suffix="-$RANDOM$RANDOM"
    local ada="ada$suffix@example.com" bo="bo$suffix@example.com"
    serve_in_background "$dir/cli-server.log"

    # 1. Register two users; the token file is private from its first byte.
    cli_note "Two people, each with their own config directory (XDG_CONFIG_HOME), register."
    cli_run ada register "$ada" Ada
    cli_expect "register: Ada signed in" 0 "Signed in as Ada"
    local mode
    mode=$(stat -c %a "$cli_home/ada/focus-island/token")
    cli_run bo register "$bo" Bo
    cli_expect "register: Bo signed in" 0 "Signed in as Bo"
    if [ "$mode" = 600 ] && [ "$(stat -c %a "$cli_home/ada/focus-island")" = 700 ]; then
        check "the token file is mode 0600 in a 0700 directory" ok
    else
        check "the token file is mode $mode" FAILED; server_stop; return 1
    fi

    # Friend requests find verified emails only: Ada confirms the code mailed at sign-up.
    cli_note "Ada confirms her email with the code mailed to her (here read from the outbox, app.outgoing_mail, as the operator's mailer would send it): friend requests find verified emails only."
    local code
    code=$(psql -X -q -At "$(cluster_url "$dir" focus_owner)" \
        -c "select substring(body from 'Your code is ([0-9]{8})') from app.outgoing_mail where recipient = '$ada' order by id desc limit 1")
    cli_run ada email verify "$code"
    cli_expect "email verify: Ada confirmed her email with the mailed code" 0 "Email verified: $ada"

    # Sign-up from a network where someone probed taken emails: the server mails a code first.
    cli_note "Cy signs up from a network where someone already tested 20 taken emails this hour (here written into app.taken_email_answers for the CLI's address): the server mails a code first, the same answer for a free and a taken email. Without a terminal to ask for it, focus says to run again with --code (exit status 6); the code is read from the outbox as the mailer would send it."
    local cy="cy$suffix@example.com" busy owner_url
    owner_url=$(cluster_url "$dir" focus_owner)
    busy=$(psql -X -q -At "$owner_url" -c "insert into app.taken_email_answers (client_ip)
        select api.address_bucket('127.0.0.1') from app.auth_settings s, generate_series(1, s.max_taken_answers_per_address)
        returning answered_at" | head -n 1)
    cli_run cy register "$cy" Cy
    cli_expect "register from a busy address: a code was mailed, exit 6 and what to do" 6 "code was mailed to $cy.*--code"
    code=$(psql -X -q -At "$owner_url" \
        -c "select params ->> 'code' from app.outgoing_mail where recipient = '$cy' and kind = 'signup_code' order by id desc limit 1")
    cli_run cy register "$cy" Cy --code "$code"
    cli_expect "register --code: Cy signed in with the mailed code" 0 "Signed in as Cy"
    psql -X -q -At "$owner_url" -c "delete from app.taken_email_answers where client_ip = '127.0.0.1' and answered_at = '$busy'"

    # A guest, upgraded in place (docs/guests.md).
    cli_note "Di starts as a guest on her phone's first minute: no email, no password, a token only. \`focus upgrade\` keeps the same account and gives it an email (the count of guests made from this address is cleared first: other checks made some)."
    local di="di$suffix@example.com"
    psql -X -q -At "$owner_url" -c "delete from app.guest_creations where client_ip in ('127.0.0.1', '::1')" >/dev/null
    cli_run di guest Di
    cli_expect "guest: Di signed in as a guest" 0 "Signed in as Di, a guest"
    cli_run di me
    cli_expect "me: a guest says so, and how to keep the account" 0 "Di, a guest .*focus upgrade"
    cli_run di upgrade "$di"
    cli_expect "upgrade: Di keeps her account, now with an email" 0 "Di <$di> keeps everything"

    # 2. A friend request seen live on Ada's stream.
    cli_note "Ada follows her events in another terminal (what it printed is shown after the purchase below)."
    [ -z "${cli_transcript:-}" ] || printf 'ada$ focus events --follow &\n\n' >>"$cli_transcript"
    local stream="$dir/cli-stream.out"
    : >"$stream.err"  # exists before the background job's own redirection creates it
    XDG_CONFIG_HOME="$cli_home/ada" FOCUS_URL="$base_url" timeout 30 "$focus" events --follow >"$stream" 2>"$stream.err" &
    local stream_pid=$!
    for _ in $(seq 100); do grep -q 'Following' "$stream.err" && break; sleep 0.1; done
    cli_note "Bo asks Ada by her email."
    cli_run bo friends add "$ada"
    cli_expect "friends add: Bo asked Ada by email" 0 "Friend request sent to Ada"
    local started
    started=$(now_ms)
    for _ in $(seq 100); do grep -q 'friend_request.received' "$stream" && break; sleep 0.05; done
    if grep -q 'friend_request.received.*Bo' "$stream"; then
        check "events --follow: Ada saw Bo's request live, $(( $(now_ms) - started )) ms after it was sent" ok
    else
        check "events --follow: no friend_request.received in $(cat "$stream" "$stream.err")" FAILED
        kill "$stream_pid" 2>/dev/null; server_stop; return 1
    fi

    # 3. Accept by display name.
    cli_note "Ada sees the request and accepts it by Bo's display name."
    cli_run ada friends
    cli_expect "friends: Ada sees Bo's request" 0 "from Bo"
    cli_run ada friends accept Bo
    cli_expect "friends accept: Ada and Bo are friends" 0 "now friends with Bo"
    cli_expect "friends accept: the answer says Ada unlocked her first friend's achievement" 0 "^Achievement unlocked: Better together \\(\\+10 coins\\)\\.$"
    cli_run bo friends
    cli_expect "friends: Bo lists Ada as a friend" 0 "Ada"

    # 4. A purchase by name, and the balance.
    cli_note "Ada (10 coins from her first friend's achievement) is granted 100 coins (here by the operator, in SQL: app.grant_coins) and buys a fern by its name."
    psql -X -q -At "$(cluster_url "$dir" focus_owner)" \
        -c "select app.grant_coins(id, 100, 'cli check') from app.users where email = '$ada'" >/dev/null
    cli_run ada buy potted fern
    cli_expect "buy: Ada bought the Potted Fern by name" 0 "Bought Potted Fern for 70 coins"
    cli_run ada me
    cli_expect "me: Ada's balance is 10 + 100 - 70 = 40 coins" 0 "Balance: 40 coins"
    cli_run ada --json me
    cli_expect "me --json: the server's JSON, balance 40" 0 '"balance":40'
    cli_expect "me --json: a member the server sent as null is printed as null" 0 '"avatar_version":null'
    cli_note "Ada writes a bio, which her friends see on her island; \`focus me\` shows it."
    cli_run ada me bio "Early riser, slow focus."
    cli_expect "me bio: Ada's bio is set and shown" 0 "^Bio: Early riser, slow focus.$"
    cli_note "Ada sets a daily goal with \`focus me set\`, which sends any field of PATCH /me by its name."
    cli_run ada --json me set daily_goal_minutes 45
    cli_expect "me set: Ada's daily goal is 45 minutes" 0 '"daily_goal_minutes":45'
    cli_run ada me set daily_goal_minutes lots
    cli_expect "me set: a goal that is no number is a usage error, nothing sent" 2 'no profile field that takes lots'
    cli_note "Ada's phone registered its push token (here by HTTP, as the app does); \`focus push-tokens\` lists it, whole for this sign-in only."
    local ada_token push_token
    ada_token=$(cat "$cli_home/ada/focus-island/token")
    push_token=$(printf 'ab%.0s' $(seq 32))
    curl -sf -X PUT -H "Authorization: Bearer $ada_token" -H 'Content-Type: application/json' \
        -d "{\"token\":\"$push_token\",\"platform\":\"apns\",\"environment\":\"production\"}" \
        "$base_url/me/push-tokens" >/dev/null
    cli_run ada push-tokens
    cli_expect "push-tokens: Ada's token by its end, this sign-in's" 0 '^apns production .*ababab \(this sign-in\): registered '
    for _ in $(seq 40); do grep -q 'balance.changed.*40' "$stream" && break; sleep 0.05; done
    kill "$stream_pid" 2>/dev/null || true
    wait "$stream_pid" 2>/dev/null || true
    if grep -q 'balance.changed.*40' "$stream"; then
        check "events --follow: Ada's stream carried the purchase's balance.changed" ok
    else
        check "events --follow: no balance.changed to 40 in $(cat "$stream")" FAILED; server_stop; return 1
    fi
    if [ -n "${cli_transcript:-}" ]; then
        cli_note "What Ada's \`focus events --follow\` printed meanwhile (stopped after the purchase):"
        printf 'ada$ focus events --follow\n%s\n%s\n\n' "$(cat "$stream.err")" "$(cat "$stream")" >>"$cli_transcript"
    fi
    cli_note "For a script, --json prints the server's JSON, one object per line."
    cli_run bo --json friends
    cli_expect "friends --json: Bo's friend list as the server's JSON" 0 '"display_name":"Ada"'
    cli_run bo --json events
    cli_expect "events --json: Bo's events, one object a line, with Ada's acceptance" 0 '^\{.*"type":"friend_request.accepted"'
    cli_expect "events --json: and Ada's achievement it unlocked (friends see each other's)" 0 '^\{.*"type":"achievement.unlocked"'
    cli_run bo events
    cli_expect "events: nothing new the second time (the cursor was saved)" 0 "^No new events.$"

    # 5. A session and the tips.
    cli_note "A focus session (finished at once: no minutes, no coins), rated; then the tips."
    cli_run ada start 25
    cli_expect "start: a 25-minute session runs" 0 "Session started: 25 minutes"
    cli_run ada finish --ended-at 2000-01-01T00:00:00Z
    cli_expect "finish --ended-at before the start: exit 1 and the server's detail" 1 "after the session started"
    cli_run ada finish
    cli_expect "finish: the running session is finished" 0 "Session finished"
    cli_run ada rate good
    cli_expect "rate: the last session is rated good" 0 "Rated good"
    cli_note "A tagged session; the history a page at a time; minutes per day and by tag."
    cli_run ada start 25 --tag "Deep  Work"
    cli_expect "start --tag: the tag is stored in its normal form" 0 "Session started: 25 minutes \\(deep work\\)"
    cli_run ada finish
    cli_expect "finish: the tagged session is finished" 0 "Session finished"
    cli_run ada history --limit 1
    cli_expect "history --limit 1: one session and how to read the next page" 0 "More: focus history --limit 1 --cursor "
    local cursor
    cursor=$(sed -n 's/^More: focus history --limit 1 --cursor \([A-Za-z0-9_-]*\)$/\1/p' <<<"$cli_out")
    cli_run ada history --limit 1 --cursor "$cursor"
    cli_expect "history --cursor: the next page, the last" 0 "Sessions, newest first"
    if grep -q "^More:" <<<"$cli_out"; then check "history --cursor: a third page after the last" FAILED; server_stop; return 1; fi
    cli_run ada stats daily
    cli_expect "stats daily: 7 days of the person's time zone" 0 "Minutes per day \\(UTC\\)"
    cli_run ada stats tags
    cli_expect "stats tags: the tagged session counted under its tag" 0 "deep work: 0 minutes, 1 session"
    cli_run ada tips sync
    cli_expect "tips sync: the tips arrive the first time" 0 "[1-9][0-9]* new tips?"
    cli_run ada tips sync
    cli_expect "tips sync: nothing new the second time" 0 "0 new tips"
    cli_note "With --language, items and tips come in that language when the server offers it (Spanish ships), else English."
    cli_run bo --language es-MX shop
    cli_expect "shop --language es-MX: the catalog in Spanish" 0 "Pip el zorro"
    cli_run bo --language fr shop
    cli_expect "shop --language fr: French is not offered, so English" 0 "Pip the Fox"
    cli_run ada config
    cli_expect "config: the app versions served and the economy" 0 "ios: at least [0-9]"

    # 5b. A focus room: Ada opens it inviting Bo, Bo joins by the code, Ada starts it; Ada
    # finishes at once (before the plan's end: a give-up), so the room fails for both.
    cli_note "A focus room: Ada opens one and invites Bo, who joins with the code; Ada starts it, and both sessions run."
    cli_run ada room open 25 Bo
    cli_expect "room open: Ada's room waits, with a code" 0 "Room opened: 25 minutes, code [2-9A-HJKMNP-TV-Z]{8}"
    local room_code
    room_code=$(grep -oE 'code [2-9A-HJKMNP-TV-Z]{8}' <<<"$cli_out" | head -n 1 | cut -c6-)
    cli_run bo room join "$room_code"
    cli_expect "room join: Bo joined by the code" 0 "Joined the room $room_code"
    cli_run ada room start
    cli_expect "room start: every member's session runs" 0 "Room started"
    cli_run bo room
    cli_expect "room: Bo sees it running" 0 "Room $room_code: 25 minutes, running"
    cli_note "Ada stops at once (before the plan's end: she gives up); the room fails for both, and Bo's events told him each step."
    cli_run ada finish
    cli_expect "finish in a room: Ada's session ends" 0 "Session finished"
    cli_run bo events
    cli_expect "events: Bo heard the invitation, the start and the give-up" 0 "room.gave_up: Ada gave up"
    cli_run bo room
    cli_expect "room: failed, Ada gave up" 0 "Ada \\(host\\): joined, gave_up"

    # 5c. Achievements: Ada's with their progress, and what Bo sees of his friend's.
    cli_note "Achievements: Ada's, unlocked or with their progress; Bo sees the ones his friend Ada unlocked."
    cli_run ada achievements
    cli_expect "achievements: Ada unlocked Better together" 0 "^\\[x\\] Better together: unlocked [0-9]{4}-[0-9]{2}-[0-9]{2} \\(10 coins\\)$"
    cli_expect "achievements: and sees how far she is from ten hours" 0 "^\\[ \\] Ten hours: [0-9]+ of 600 \\(50 coins\\)$"
    cli_run bo achievements Ada
    cli_expect "achievements Ada: Bo sees what his friend unlocked" 0 "^Better together: unlocked "
    # 5d. A gift: Ada sends Bo 20 of her coins; Bo sees it waiting and accepts it; Ada hears it.
    # A sender needs a verified email and an account a week old (docs/gifts.md, "Who may send").
    cli_note "A gift: Ada sends Bo 20 coins (paid at once); Bo sees it waiting, accepts it, and Ada hears he did. A sender needs a verified email and an account at least a week old, so the operator first backdates, in SQL, Ada's and Bo's sign-ups by eight days, as if they had joined then."
    psql -X -q -At "$(cluster_url "$dir" focus_owner)" \
        -c "update app.users set created_at = now() - interval '8 days' where email in ('$ada', '$bo')" >/dev/null
    cli_run ada gift send Bo 20
    cli_expect "gift send: Ada paid 20 of her coins" 0 "Sent Bo 20 coins .*Balance: [0-9]+ coins"
    cli_run bo gift
    cli_expect "gift: Bo sees it waiting" 0 "20 coins from Ada"
    cli_run bo gift accept
    cli_expect "gift accept: Bo took the only gift waiting" 0 "Accepted 20 coins from Ada. Balance: [0-9]+ coins"
    cli_run ada events
    cli_expect "events: Ada heard Bo accepted" 0 "gift.accepted: Bo accepted your gift"
    # 5e. Streak freezes: Bo buys two, a third is refused; a day he missed is covered.
    cli_note "Bo is granted 120 coins and buys streak freezes: two at most, so the third is refused."
    psql -X -q -At "$(cluster_url "$dir" focus_owner)" \
        -c "select app.grant_coins(id, 120, 'cli check') from app.users where email = '$bo'" >/dev/null
    cli_run bo streak freeze
    cli_expect "streak freeze: Bo holds one, paid through the ledger" 0 "Bought a streak freeze for 50 coins: 1 of 2 held. Balance: [0-9]+ coins."
    cli_run bo streak freeze
    cli_expect "streak freeze: a second" 0 "2 of 2 held. Balance: [0-9]+ coins."
    cli_run bo streak freeze
    cli_expect "streak freeze: a third is refused, nothing charged" 1 "two streak freezes"
    cli_note "A missed day needs a day to pass: the operator backdates, in SQL, a session Bo recorded two days ago and his first freeze's purchase to the day before. Yesterday he missed; the freeze covers it when the streak is read."
    psql -X -q -At "$(cluster_url "$dir" focus_owner)" -c "
        with bo as (select id from app.users where email = '$bo'),
             day as (select date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - interval '2 days' + interval '12 hours' as ends)
        insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
        select gen_random_uuid(), bo.id, 'offline', day.ends - interval '30 minutes', day.ends, tstzrange(day.ends - interval '30 minutes', day.ends), 30
        from bo, day;
        update app.streak_freezes set bought_at = bought_at - interval '3 days'
        where id = (select f.id from app.streak_freezes f join app.users u on u.id = f.user_id
                    where u.email = '$bo' order by f.bought_at, f.id limit 1);" >/dev/null
    cli_run bo streak
    cli_expect "streak: yesterday is covered by a freeze, the streak kept" 0 "Streak: 1 day \\(longest 1\\)\\. Kept by freezes on [0-9-]{10}\\."
    cli_expect "streak: one freeze left" 0 "Freezes held: 1 of 2 \\(1 used in all\\)"
    cli_run bo events
    cli_expect "events: Bo heard his freeze used" 0 "streak.frozen: a streak freeze covered [0-9-]{10}"

    # 6. Bad input: a sentence on stderr and the status --help documents.
    cli_note "Bad input: a clear sentence and a non-zero exit status (listed by focus --help)."
    cli_run ada buy unicorn
    cli_expect "buy an unknown item: exit 1 and a sentence" 1 "No item named unicorn"
    cli_run ada friends --cursor not-a-cursor
    cli_expect "friends with a cursor no page gave: exit 1 and the server's detail" 1 "cursor"
    cli_run ada stats daily --from 30/11/2026
    cli_expect "stats daily with a malformed day: a usage error before anything is sent" 2 "YYYY-MM-DD"
    cli_run ada buy 00000000-0000-4000-8000-000000000000
    cli_expect "buy an unknown id: the server's 404 detail, exit 1" 1 "."
    CLI_PASSWORD="wrong password" cli_run ada login "$ada"
    cli_expect "login with a wrong password: exit 1 and the server's detail" 1 "[Ee]mail or password"
    cli_run carol me
    cli_expect "me without a token: exit 3, told to log in" 3 "focus login"
    cli_run ada frobnicate
    cli_expect "an unknown command: exit 2" 2 "unknown command frobnicate"
    cli_run ada logout
    cli_expect "logout: signed out" 0 "Signed out"
    cli_run ada me
    cli_expect "me after logout: exit 3" 3 "focus login"
    server_stop
}

# Run on its own: a throwaway cluster, the checks once, their commands as Markdown.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    if [ "${1:-}" != --transcript ] || [ -z "${2:-}" ]; then
        die "usage: Tests/system/cli-checks.sh --transcript FILE.md"
    fi
    cli_transcript=$(realpath "$2")
    "$ROOT/scripts/setup"
    throwaway_cluster cli
    server=$(build_server)
    "$server" migrate >/dev/null
    "$server" seed >/dev/null
    cat >"$cli_transcript" <<'MARKDOWN'
<!-- Code generated by Tests/system/cli-checks.sh --transcript docs/cli-transcript.md. DO NOT EDIT. -->
# The focus command line: a transcript

The commands `scripts/test` checks (Tests/system/cli-checks.sh), run on a fresh cluster, with
what each printed (stdout and stderr). The prompt names the user whose config directory the
command ran with (`XDG_CONFIG_HOME`); `FOCUS_PASSWORD` was "correct horse" unless shown;
`FOCUS_URL` was the test server, on a free port.

MARKDOWN
    cli_checks
    cli_close
    # The server listened on a free port: name it once, not in every line.
    sed -i "s#$base_url#http://127.0.0.1:PORT#g" "$cli_transcript"
    say "transcript written to $2"
fi
