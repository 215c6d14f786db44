-- api problems: the registry of problem codes, the one place a code, its status and its meaning
-- are written. docs/errors.md is generated from it (scripts/lint --update, by
-- scripts/lib/endpoints.py), and from that the client's ProblemCode; api.endpoints' `errors`
-- may name only codes written here (its trigger), and so may the codes every route of its kind
-- answers (generic_codes in scripts/lib/endpoints.py). A code, once published, is never reused
-- for another meaning: a retired code keeps its row and says since when it is retired.
-- Recreated with schema api on every migrate.

create table api.problems (
    code text primary key check (code ~ '^[a-z][a-z_]*$'),
    status smallint not null check (status between 400 and 599),
    -- When it is answered, for people (markdown, one paragraph; links are relative to docs/).
    meaning text not null check (meaning <> ''),
    -- The members the problem carries beside the standard ones, when it has any (markdown).
    extra text check (extra <> '')
);
comment on table api.problems is
'Every error is `application/problem+json`:
`{"type": "urn:focus-island:problem:<code>", "title", "status", "detail", "code"}`, sometimes
with extra members (named below). Clients branch on `code`; `detail` is a sentence for people
and may change. SQL raises `PTnnn` (nnn = status) with `DETAIL` = code, `HINT` = extra members;
PostgreSQL''s own errors are mapped in `Sources/FocusIsland/HTTP/ErrorMapping.swift`.
A code, once published, is never reused for another meaning; retired codes stay listed.

Answers libmicrohttpd makes itself, before any of this server''s code runs, are the only ones
that are not problem+json (it offers no hook to replace them): 431 for a request head over
about 16 KiB (heads of 8 to 15.8 KiB get this server''s `header_too_large`), 414 for a request
line over it, 400 for a malformed chunk size or `Content-Length`, 413 for a `Content-Length`
past 2^64. A connection refused because `CONNECTION_LIMIT` (or the per-address limit) is
reached is closed at once, with no answer.';
-- Declarations, not data about anyone (docs/privacy.md's catalogue reads these lines).
do $$
declare
    v_column text;
begin
    foreach v_column in array array['code', 'meaning', 'extra'] loop
        execute format('comment on column api.problems.%I is %L', v_column,
                       'personal: no (a problem code''s declaration); on erasure: kept (code, made again by every migrate)');
    end loop;
end
$$;

insert into api.problems (code, status, meaning, extra) values
    ('invalid_json', 400,
     'body empty, not JSON (nested too deep included), not an object, not UTF-8',
     null),
    ('duplicate_key', 400,
     'a JSON body with a key written twice in one object, at any depth '
     '(`{"coins":1,"coins":999}`); keys are compared with their escapes resolved (`"a"` and '
     '`"\u0061"` are one key), code point by code point; refused before anything runs '
     '(2026-12-06, [versioning.md](versioning.md))',
     '`key` (the repeated key, its first 100 characters)'),
    ('body_not_allowed', 400,
     'a route that takes no body (no `requestBody` in docs/openapi.json: every GET, accept, '
     'decline, leave, join, block, logout, a streak freeze, …) was sent one; an empty body or '
     '`{}` is no body and passes; nothing runs (2026-12-06, [versioning.md](versioning.md))',
     null),
    ('invalid_field', 400,
     'a field is missing, of the wrong type, out of range, too long (1,000 characters unless the '
     'field says less), or unknown; an `Idempotency-Key` that is not 1 to 255 visible ASCII '
     'characters (a space included); an `X-Client-Version` that is not `<platform>/<version>`',
     '`field` (when known)'),
    ('invalid_input', 400,
     'any other malformed value PostgreSQL refused (class 22)',
     null),
    ('invalid_email', 400,
     'any email field (register, login, change email, password reset and its confirm, friend '
     'requests): not an email address',
     null),
    ('weak_password', 400,
     'register, change or reset password: under 8 characters',
     null),
    ('invalid_cursor', 400,
     'a paged list (`GET /friends`, `/me/blocks`, `/focus-sessions`, `/moderation/reports`): the '
     '`cursor` is not a `next_cursor` this list gave (malformed, another list''s, altered); send '
     'it back as it came, or leave it out for the first page',
     null),
    ('invalid_date_range', 400,
     '`GET /me/stats/daily`, `/me/stats/tags`: `from` is after `to`, or the range holds more days'
     ' than the route allows (366 for daily)',
     null),
    ('invalid_display_name', 400,
     'blank or over 40 characters (after NFC), control, bidi (embedding, override, isolate, '
     'mark), zero-width or invisible characters, 3 combining marks in a row, or a reserved name '
     '(`Deleted user`, `admin`, `moderator`, `Focus Island`, …, in any case, spacing or '
     'look-alike spelling)',
     null),
    ('inappropriate_display_name', 400,
     'register or rename: the name contains a term of the operator''s blocklist '
     '(`app.blocked_name_terms`), matched after folding case, accents, look-alike digits, symbols'
     ' and letters, spacing and punctuation',
     null),
    ('inappropriate_bio', 400,
     '`PATCH /me`: the bio contains a term of the operator''s name blocklist '
     '(`app.blocked_name_terms`), matched as for display names',
     null),
    ('unauthorized', 401,
     'token missing, unknown, expired or revoked (`WWW-Authenticate: Bearer`)',
     null),
    ('invalid_credentials', 401,
     'login: unknown email or wrong password (one answer for both)',
     null),
    ('invalid_reset_code', 400,
     'reset confirm: the code is wrong, expired, used or void after 5 wrong guesses, or the email'
     ' unknown (one answer; counts toward the address''s ceiling of wrong codes)',
     null),
    ('invalid_deletion_code', 400,
     '`POST /account/delete/confirm` (web page): the deletion code is wrong, expired, used or '
     'void after 5 wrong guesses, or the email unknown (one answer; counts toward the address''s '
     'ceiling of wrong codes, shared with reset codes); shown on the page',
     null),
    ('invalid_signup_code', 400,
     'register with `code` (after a 202 answer): the code is wrong, expired (15 minutes), used, '
     'replaced by a newer one or void after 5 wrong guesses, or none was mailed to the email (one'
     ' answer; counts toward the address''s wrong codes, with reset and deletion codes)',
     null),
    ('invalid_verification_code', 400,
     'verify email: the code is wrong, expired, used or void after 5 wrong guesses, or no code '
     'waits',
     null),
    ('account_suspended', 403,
     'every route but export, deletion and logout, while a moderator''s suspension or ban of the '
     'account holds',
     '`suspended_until` (null for a ban)'),
    ('not_moderator', 403,
     '`/moderation/…`: the account is not a moderator (`app.moderators`)',
     null),
    ('csrf_failed', 403,
     'moderation console (web page): a form that changes something without the session''s CSRF '
     'token, or with another (a stale page, another site)',
     null),
    ('wrong_password', 403,
     'delete account, change password or email: the password given is wrong (counted for the '
     'account''s own password checks; nothing changes)',
     null),
    ('kind_mismatch', 400,
     'selecting an item as another kind than it is',
     null),
    ('not_found', 404,
     'no route at that path',
     null),
    ('user_not_found', 404,
     'no account with that email; not your friend, or a friend while suspended (`GET '
     '/users/{id}`); no such live user to block, report or moderate; inviting someone who is not '
     'your friend to a room; a gift to someone who is not your friend (a block either way, a '
     'deleted account: answered the same)',
     null),
    ('token_not_found', 404,
     '`DELETE /me/tokens/{id}`: no working token of yours with that id (someone else''s answers '
     'the same)',
     null),
    ('push_token_not_found', 404,
     '`DELETE /me/push-tokens/{token}`: no push token of yours with that value (another account''s'
     ' answers the same)',
     null),
    ('block_not_found', 404,
     'unblocking someone you have not blocked',
     null),
    ('friend_request_not_found', 404,
     'no pending request you may act on (someone else''s answers the same)',
     null),
    ('report_not_found', 404,
     '`/moderation/reports/{id}/resolve`: no such report',
     null),
    ('not_friends', 404,
     'removing someone who is not your friend',
     null),
    ('avatar_not_found', 404,
     'no avatar, or not yours or a friend''s; a moderator removing an avatar the user does not '
     'have',
     null),
    ('session_not_found', 404,
     'no such session of yours (someone else''s answers the same)',
     null),
    ('session_finished', 409,
     'abandon: the session already ended (finished, recorded offline)',
     null),
    ('item_not_found', 404,
     'no such (active, and for purchases and gifts in its season) shop item',
     null),
    ('method_not_allowed', 405,
     'known path, other method (`Allow` lists the methods)',
     null),
    ('request_timeout', 408,
     'the request head was not complete within `HEAD_TIMEOUT` of connecting (or `IDLE_TIMEOUT` '
     'after the previous answer); the connection closes',
     null),
    ('email_taken', 409,
     'register (and `POST /me/upgrade`, counted alike): the email exists, in any letter case (20 '
     'an hour per address; past that a sign-up answers 202 alike for taken and free emails, a '
     'code mailed), or, with a right `code`, an account took the email since the mail; verify '
     'email: another account took the address meanwhile',
     null),
    ('nothing_to_verify', 409,
     'resend a verification code: the email is verified and no change waits',
     null),
    ('insufficient_funds', 409,
     'purchase (an item or a streak freeze) or gift: the balance is below the price (a gift''s '
     'coins, or its item''s price now: a sale''s inside a sale)',
     '`balance`, `price`'),
    ('not_owned', 409,
     'selecting an item the user does not own',
     null),
    ('session_in_progress', 409,
     'start: a live session is still running',
     '`id` of the running session'),
    ('session_conflict', 409,
     'record: the id was used for a different session',
     null),
    ('session_overlap', 409,
     'the session overlaps another of yours',
     null),
    ('session_not_finished', 409,
     'rating a session that is still running',
     null),
    ('already_friends', 409,
     'asking a friend (but one you accepted by asking back: that repeats its 200)',
     null),
    ('request_pending', 409,
     'retired: asking someone you already asked now answers 200 with the pending request '
     '(CHANGELOG)',
     null),
    ('report_resolved', 409,
     'resolving a report that is no longer open',
     null),
    ('user_blocked', 409,
     'asking someone you blocked (unblock first)',
     null),
    ('conflict', 409,
     'a unique, exclusion or reference rule refused the change',
     null),
    ('body_too_large', 413,
     'body over the route''s limit (64 KiB; sync 1 MiB; avatar 256 KiB), announced or chunked',
     null),
    ('header_too_large', 431,
     'the request head (request line and headers) is over 8 KiB',
     null),
    ('unsupported_media_type', 415,
     'a JSON route without `Content-Type: application/json`',
     null),
    ('idempotency_key_reused', 422,
     'an Idempotency-Key sent again with another route, body or password',
     null),
    ('invalid_session', 422,
     'record: ends in the future (beyond 2 minutes of skew), before it starts, is too long or too'
     ' old, or starts before the account was made (since 2026-12-06); finish: `ended_at` not '
     'after the start, or in the future (beyond the skew)',
     null),
    ('cannot_friend_self', 422,
     'asking yourself',
     null),
    ('cannot_block_self', 422,
     'blocking yourself',
     null),
    ('cannot_report_self', 422,
     'reporting yourself',
     null),
    ('cannot_moderate_self', 422,
     'a moderator acting on their own account',
     null),
    ('constraint_violation', 422,
     'a CHECK or NOT NULL rule refused the value',
     null),
    ('too_many_pending', 429,
     '50 outgoing requests are already pending',
     null),
    ('unsupported_image', 415,
     'an avatar that is not a PNG or JPEG (by its first bytes)',
     null),
    ('too_many_streams', 429,
     '`GET /events`: the user already holds `max_streams_per_user` open streams '
     '(`app.event_settings`, default 3)',
     null),
    ('too_many_polls', 429,
     '`GET /events` with `wait`: the user already holds `max_polls_per_user` waiting long-polls '
     'on this server (`app.event_settings`, default 5; `Retry-After`)',
     null),
    ('too_many_attempts', 429,
     'login: 10 failures for the email from this address, or 50 from all addresses not known to '
     'the account, in 15 minutes; password check (delete account, change password or email): 10 '
     'wrong passwords given with the account''s own tokens in 15 minutes; reset confirm and web '
     'account deletion confirm (wrong codes of either kind count together, from this address, '
     'IPv6: its /64, in 15 minutes): past 30, a second guess at the same email; at 300, every '
     'code; moderation console sign-in: as login; register past the address''s 20 `email_taken` '
     'answers in an hour (which answer 202 with a code mailed): 3 sign-up mails to the email in '
     'an hour, or 1,000 caused from this address in an hour, and with `code`, the address''s wrong'
     ' codes as for reset confirm; change email or resend a code: 3 codes mailed in an hour; '
     '`POST /auth/guest`: 20 guests made from this address (IPv6: its /64) in an hour; `POST '
     '/me/upgrade`: past the address''s 20 `email_taken` answers in an hour, for every email '
     'alike; `POST /me/parental-consent`: 3 consent mails in a day (`Retry-After`)',
     null),
    ('too_many_friend_requests', 429,
     'friend requests by email: over the sender''s rate (`app.social_settings`, 100 a day), '
     'unknown emails included (`Retry-After`)',
     null),
    ('too_many_reports', 429,
     'reports: over the reporter''s rate (`app.moderation_settings`, 20 new reports in any 24 '
     'hours; reporting again while a report is open stores nothing and does not count) '
     '(`Retry-After`)',
     null),
    ('upgrade_required', 426,
     '`X-Client-Version` below its platform''s `min_version` (`GET /config`): every route but `GET'
     ' /config`, `/health`, `/ready`, `DELETE /me`, `GET /me/export` and the pages under '
     '`/account/`',
     '`platform`, `min_version`, `store_url`'),
    ('not_room_host', 403,
     '`POST /rooms/{id}/start`: only the room''s host starts it',
     null),
    ('room_friends_only', 403,
     'retired 2026-12-06: `POST /rooms/{code}/join` by someone who is not the host''s friend now '
     'answers 404 `room_not_found`, as an unknown code',
     null),
    ('room_not_found', 404,
     '`POST /rooms/{code}/join`: no room with that code that you may join (an unknown code, the '
     'host not your friend or suspended, a block between you and a member: one answer, one '
     '`detail`); no room of yours with that id',
     null),
    ('too_many_join_attempts', 429,
     '`POST /rooms/{code}/join`: over the account''s joins that found no room '
     '(`app.room_settings`, 10 in any 15 minutes) (`Retry-After`)',
     null),
    ('room_full', 409,
     '`POST /rooms/{code}/join`: the room holds `max_members` joined members '
     '(`app.room_settings`, default 5)',
     null),
    ('room_not_open', 409,
     'the room has started or ended: a second start, a join or a leave after the start (give up '
     'by abandoning your session)',
     null),
    ('room_in_progress', 409,
     'open or join: you are already in another room that waits or runs',
     '`id` of that room'),
    ('room_too_small', 409,
     '`POST /rooms/{id}/start`: fewer than two members joined',
     null),
    ('room_member_busy', 409,
     '`POST /rooms/{id}/start`: a member''s own live session runs or covers the time',
     '`user_ids` of those members'),
    ('cannot_gift_self', 422,
     '`POST /gifts`: a gift to yourself',
     null),
    ('gift_not_found', 404,
     'no gift to you with that id (the sender''s own answers the same)',
     null),
    ('gift_item_owned', 409,
     '`POST /gifts`: the friend owns the item, or a pending gift of it waits for them',
     null),
    ('gift_not_pending', 409,
     'accept or decline a gift that ended otherwise (declined, accepted, expired, cancelled); one'
     ' past its expiry ends as expired with this answer',
     '`gift_status`'),
    ('gift_limit_reached', 429,
     '`POST /gifts`: over the sender''s gifts or coins per UTC day, whatever their time zone '
     '(`app.gift_settings`, 10 gifts and 500 coins; [economy.md](economy.md), "Limits count UTC '
     'days"; before 2026-12-06 their local day) (`Retry-After`: to the next UTC midnight)',
     '`max_per_day`, `max_coins_per_day`, `sent_today`, `coins_today`'),
    ('gift_sender_not_eligible', 403,
     '`POST /gifts`: the sender''s email is not verified, or their account is younger than '
     '`app.gift_settings.min_sender_account_age` (7 days) ([gifts.md](gifts.md), "Who may send")',
     '`email_verified`, `account_old_enough_at`'),
    ('streak_freezes_full', 409,
     '`POST /me/streak-freezes`: you already hold two streak freezes, the most one can hold '
     '([streaks.md](streaks.md))',
     null),
    ('internal_error', 500,
     'anything unexpected (details only in the server log)',
     null),
    ('database_unavailable', 503,
     'the database is down or restarting (`Retry-After: 1`)',
     null),
    ('busy', 503,
     'serialization failures or deadlocks persisted after 3 tries',
     null),
    ('timeout', 503,
     'the statement ran past `statement_timeout` (5 s for focus_api)',
     null),
    ('maintenance', 503,
     'maintenance mode (`app.release_settings`): the routes `upgrade_required` holds; `detail` is'
     ' the operator''s message (`Retry-After`)',
     '`retry_after_seconds`'),
    ('not_ready', 503,
     '`/ready`: database unreachable or not migrated',
     null),
    ('draining', 503,
     '`/ready`: the server is stopping; a balancer takes it out while it finishes its requests '
     '(`/health` still answers 200)',
     null),
    ('shutting_down', 503,
     'the server is stopping: a request that came in its last moment, or one still waiting for '
     'the database when `STOP_GRACE` ended (its statement may still commit: send it again with '
     'the same `Idempotency-Key`); `Retry-After: 1`. Before 2026-12-05 also a stream asked for '
     'while the server stopped',
     null),
    ('identity_token_invalid', 401,
     '`POST /auth/apple`, `/auth/google`, `/me/identities`: the ID token is not a JWT signed with'
     ' RS256 by a named key, its signature is wrong, it has no `exp`, `iat` or subject, or it was'
     ' issued in the future (beyond 60 s of skew) '
     '([security.md](security.md#sign-in-with-apple-and-google-2026-12-07))',
     null),
    ('identity_token_expired', 401,
     'the same routes: the ID token''s `exp` has passed (beyond 60 s of skew); get a new one from '
     'the provider',
     null),
    ('identity_token_wrong_issuer', 401,
     'the same routes: the token''s `iss` is not the provider''s (`https://appleid.apple.com`; '
     '`https://accounts.google.com` or `accounts.google.com`), or a token of the other provider',
     null),
    ('identity_token_wrong_audience', 401,
     'the same routes: the token''s `aud` names none of the server''s client ids for the provider '
     '(`APPLE_CLIENT_IDS`, `GOOGLE_CLIENT_IDS`)',
     null),
    ('identity_token_unknown_key', 401,
     'the same routes: the token''s `kid` is not in the provider''s published keys (fetched again '
     'at most once a minute for an unknown one)',
     null),
    ('identity_nonce_mismatch', 401,
     'the same routes: Apple: the token''s `nonce` is not the SHA-256 (lower-case hex) of the '
     '`nonce` sent; Google: not the `nonce` sent, when one is sent',
     null),
    ('identity_keys_unavailable', 503,
     'the same routes: the provider''s keys could not be fetched and none are kept (`Retry-After`)',
     null),
    ('sign_in_provider_unavailable', 503,
     'the same routes: this server has no client ids for that provider (Sign in with it is off)',
     null),
    ('invalid_authorization_code', 400,
     '`POST /auth/apple`, `/me/identities` with `authorization_code`: Apple refused to exchange '
     'it (used, expired, another app''s); sign in again for a new one',
     null),
    ('identity_email_missing', 400,
     '`POST /auth/apple`, `/auth/google`: a first sign-in whose token carries no usable email (no'
     ' account can be made without one)',
     null),
    ('account_exists_link_required', 409,
     '`POST /auth/apple`, `/auth/google`: a first sign-in with this provider account, whose email'
     ' an account already has (any letter case): nothing is linked or made; sign in to that '
     'account (password, the other provider, or a password reset''s code), then `POST '
     '/me/identities`',
     '`provider`'),
    ('identity_not_linked', 403,
     '`DELETE /me` with an ID token instead of a password: the token''s provider account is not '
     'linked to this account (nothing changes)',
     null),
    ('identity_linked_elsewhere', 409,
     '`POST /me/identities`: that provider account is linked to another account',
     null),
    ('identity_provider_linked', 409,
     '`POST /me/identities`: this account already has another account of that provider linked',
     null),
    ('guest_not_allowed', 403,
     'a guest (`POST /auth/guest`, no email or password yet) asking for what needs a verified '
     'identity: a friend request by email, a gift, a room (open or join), the global leaderboard,'
     ' changing a password or an email; `POST /me/upgrade` first ([guests.md](guests.md), '
     '2026-12-07)',
     null),
    ('parental_consent_required', 403,
     '`POST /friend-requests`: the account is under the age gate (`app.age_settings.min_age`, 13)'
     ' and no parent''s consent is recorded; `POST /me/parental-consent` asks for it '
     '([guests.md](guests.md))',
     null),
    ('already_upgraded', 409,
     '`POST /me/upgrade`: the account already has an email and password (the same email again '
     'answers 200, as a double submit)',
     null),
    ('parental_consent_not_needed', 409,
     '`POST /me/parental-consent`: the account is not under the age gate (no birth month under '
     '`min_age`, or consent recorded)',
     null),
    ('invalid_consent_code', 400,
     '`POST /parental-consent`: the code is wrong or expired (7 days)',
     null);
