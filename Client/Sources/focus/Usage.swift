// Usage: the text of `focus --help`, with the exit statuses (ExitStatus.swift) and the files
// and variables the command reads.

enum Usage {
    static var text: String {
        let statuses = ExitStatus.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
        return """
            focus: Focus Island from the command line

            usage: focus [--json] COMMAND [ARGUMENTS]

            account
              focus register EMAIL [DISPLAY NAME]   create an account and sign in (name: the email's local part)
                [--time-zone ZONE]                  your days in an IANA zone from the start (Europe/Paris; default UTC)
                [--code CODE]                       the code mailed when many sign-ups come from your network
                                                    (asked for on the terminal when not given)
              focus login EMAIL                     sign in; the token is saved for the next commands
              focus logout                          end this token's session on the server and forget it
              focus me                              your profile, balance and what you show
              focus email verify CODE               confirm the code mailed to your (new) email
              focus email resend                    mail a new code for the email waiting to be verified
              focus me bio TEXT                     the bio your friends see on your island ("" clears it)

            shop
              focus shop                            the catalog, with what you own
              focus buy NAME|ID                     buy an item by name (any case, or its start: "mochi") or id
              focus select pet|sound|furniture NAME|ID
                                                    show an item you own

            focus sessions
              focus start [MINUTES] [--tag TAG]     start a live session (default 25, 1 to 180), with a label
              focus finish                          finish the running session; coins for the minutes focused
                [--ended-at TIME]                   it really ended then (RFC 3339, 2026-12-01T10:15:00Z), not now
              focus rate good|fine|bad              rate the last session; prints a tip for it
              focus history [--limit N] [--cursor CURSOR]
                                                    your sessions of the last 30 days, newest first, a page at a time
              focus stats daily [--from DAY] [--to DAY]
                                                    minutes and sessions per day of your time zone (default: 7 days)
              focus stats tags [--from DAY] [--to DAY]
                                                    minutes and sessions by tag (default: all)

            friends
              focus friends [--limit N] [--cursor CURSOR]
                                                    friends (a page at a time) and pending requests
              focus friends add EMAIL               ask someone (accepted at once if they had asked you)
              focus friends accept [NAME|ID]        accept a request to you (no name: the only one pending)
              focus friends decline [NAME|ID]       decline a request to you
              focus friends cancel [NAME|ID]        withdraw a request you sent
              focus friends remove NAME|ID          end a friendship
              (NAME is the other user's display name; ID a request id or the user's id)

            focus rooms (friends focus together; if anyone gives up, nobody gets the bonus)
              focus room open [MINUTES] [FRIEND...] open a room (default 25 minutes), inviting friends by name or id
              focus room join CODE                  join a friend's room by its code
              focus room start                      start the room you opened: every member's session starts now
              focus room                            the room you opened or joined last, its members and outcomes

            achievements
              focus achievements                    yours: unlocked ones and the progress of the others
              focus achievements FRIEND             what a friend (name or id) unlocked
            gifts (to friends; paid when sent, refunded if declined or expired)
              focus gift send FRIEND COINS|ITEM     send a friend coins, or buy them a shop item (name or id)
              focus gift                            gifts waiting for you, and the ones you sent
              focus gift accept [ID]                take a gift (no id: the only one waiting)
              focus gift decline [ID]               refuse a gift: its sender gets the coins back
            streak
              focus streak                          your current and longest streak, freezes held, days they covered
              focus streak freeze                   buy a streak freeze: it covers one missed day (two held at most)

            live
              focus events                          what happened since the last `focus events`
              focus events --follow                 stay connected and print events as they happen
              focus tips sync                       fetch new mindfulness tips, drop retired ones

            server
              focus config                          app versions served, maintenance, feature flags, the economy

            options
              --json          the server's JSON instead of sentences, one object per line
              --follow, -f    with events: keep streaming (Ctrl-C to stop)
              --ended-at TIME with finish: when the session really ended
              --time-zone ZONE
                              with register: the account's time zone
              --code CODE     with register: the code the server mailed first (see register)
              --help, -h      this text
              --language TAG  items and tips in that language when the server offers it (Accept-Language,
                              e.g. es or "es-MX, es;q=0.9"); else English
              --limit N, --cursor CURSOR
                              with friends and history: a page of N; the cursor a page printed as "More:"
              --tag TAG       with start: the session's label ("math"; stats tags sums by it)
              --from DAY, --to DAY
                              with stats: the first and last day, YYYY-MM-DD

            environment
              FOCUS_URL       the server (default http://127.0.0.1:8080)
              FOCUS_PASSWORD  the password for register and login (else asked on the terminal, without echo)
              XDG_CONFIG_HOME the config directory's parent (default ~/.config): focus-island/ holds
                              token (mode 0600), session, tips.json and events

            exit status
            \(statuses)
            """
    }
}
