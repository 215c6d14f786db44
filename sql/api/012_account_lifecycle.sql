-- api account lifecycle: what an app store asks of an app with accounts. Delete the account
-- (an anonymous tombstone stays), export everything stored about you, change the password or
-- email, reset a forgotten password through a code mailed by an operator's mailer, and see and
-- end the sessions of your devices (tokens).

-- The one function here that touches app.login_failures. Failures are recorded by kind, and
-- each kind is throttled only by what the one who causes it can do (docs/security.md):
--   'record' adds a failure of `kind` for the email from the address;
--   'clear' forgets the address's failures of the email (all of them when client_ip is null);
--   'check' answers the seconds to wait, else null:
--     kind 'password' (a wrong current password given with the account's own token): at
--       max_failed_logins such failures of the email within failed_login_window. Strangers'
--       sign-in and code failures never count here, so a signed-in owner who proves the
--       password is never locked out by them;
--     kind 'code' (a wrong reset, web deletion or sign-up code; one count for the three), by
--       the address's wrong codes (IPv6: its /64) across all emails within failed_login_window,
--       in two steps sized for a NAT (2026-12-05):
--       - below first_guess_only_after_code_failures (30) every guess is checked;
--       - from there on, a guess is checked only if the address made no wrong guess at this
--         email in the window: someone typing the code of their own mail gets in while a
--         schoolmate guesses, and a guesser gets one guess per email, none more. It is keyed by
--         email and address, recorded alike for every email, never by the code, which only
--         accounts have: "this code was guessed before" would tell which emails have one;
--       - at max_code_failures_per_address (300) every code from the address waits, the last
--         resort against guesses spread over hundreds of emails.
--       The wait ends when the address falls back under the step that refused it or, in the
--       middle step, when its wrong guesses at this email age out, whichever comes first. Each
--       code also stops working after max_code_attempts wrong guesses from anywhere.
-- 'check' serializes attempts for the email (the same advisory lock as api.auth_login) and,
-- for codes, for the address.
create function api.failed_attempts(email text, action text, client_ip inet default null, kind text default 'login')
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_settings app.auth_settings;
    v_bucket inet := api.address_bucket(failed_attempts.client_ip);
    v_failures integer;
    v_oldest timestamptz;
    v_below timestamptz;
    v_mine timestamptz;
begin
    if failed_attempts.action = 'record' then
        insert into app.login_failures (email, client_ip, kind)
        values (failed_attempts.email, failed_attempts.client_ip, failed_attempts.kind);
        return null;
    elsif failed_attempts.action = 'clear' then
        delete from app.login_failures f
        where f.email = failed_attempts.email::citext
          and (failed_attempts.client_ip is null or f.client_ip = failed_attempts.client_ip);
        return null;
    elsif failed_attempts.action <> 'check' or failed_attempts.kind not in ('password', 'code') then
        raise exception 'api.failed_attempts: no % of % failures', failed_attempts.action, failed_attempts.kind;
    end if;
    select * into v_settings from app.auth_settings;
    perform pg_advisory_xact_lock(hashtext('login:' || lower(failed_attempts.email)));
    if failed_attempts.kind = 'password' then
        select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
        from app.login_failures f
        where f.email = failed_attempts.email::citext and f.kind = 'password'
          and f.failed_at > now() - v_settings.failed_login_window;
        if v_failures < v_settings.max_failed_logins then
            return null;
        end if;
        return greatest(1, ceil(extract(epoch from v_oldest + v_settings.failed_login_window - now()))::integer);
    end if;

    perform pg_advisory_xact_lock(hashtext('codes:' || coalesce(host(v_bucket), '-')));
    select count(*)::integer, min(f.failed_at) into v_failures, v_oldest
    from app.login_failures f
    where f.kind = 'code' and f.failed_at > now() - v_settings.failed_login_window
      and (f.client_ip <<= v_bucket or (v_bucket is null and f.client_ip is null));
    if v_failures >= v_settings.max_code_failures_per_address then
        -- Under the ceiling again once the failures past it age out.
        select f.failed_at into v_below
        from app.login_failures f
        where f.kind = 'code' and f.failed_at > now() - v_settings.failed_login_window
          and (f.client_ip <<= v_bucket or (v_bucket is null and f.client_ip is null))
        order by f.failed_at
        offset v_failures - v_settings.max_code_failures_per_address limit 1;
        return greatest(1, ceil(extract(epoch from v_below + v_settings.failed_login_window - now()))::integer);
    end if;
    if v_failures < v_settings.first_guess_only_after_code_failures then
        return null;
    end if;
    select max(f.failed_at) into v_mine
    from app.login_failures f
    where f.kind = 'code' and f.email = failed_attempts.email::citext and f.failed_at > now() - v_settings.failed_login_window
      and (f.client_ip <<= v_bucket or (v_bucket is null and f.client_ip is null));
    if v_mine is null then
        return null;  -- the address's first guess at this email in the window
    end if;
    select f.failed_at into v_below
    from app.login_failures f
    where f.kind = 'code' and f.failed_at > now() - v_settings.failed_login_window
      and (f.client_ip <<= v_bucket or (v_bucket is null and f.client_ip is null))
    order by f.failed_at
    offset v_failures - v_settings.first_guess_only_after_code_failures limit 1;
    return greatest(1, ceil(extract(epoch from least(v_below, v_mine) + v_settings.failed_login_window - now()))::integer);
end
$$;

-- Locks a live account for a change to it: its tokens first, then its row, the order in which a
-- request takes them (api.authenticate may touch the token, then api.lock_user locks the user),
-- so a racing request waits instead of deadlocking. 401 if the account was deleted meanwhile.
create function api.lock_account(user_id uuid)
returns app.users
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
begin
    perform from app.auth_tokens t where t.user_id = lock_account.user_id order by t.digest for update;
    return api.lock_user(lock_account.user_id);
end
$$;

-- Locks a live account for its erasure: its tokens first (as api.lock_account), then the rows of
-- the account and of everyone it has a friendship or request with, all in id order, the order
-- in which every two-user path takes them (api.lock_pair, api.lock_two_users, the gifts'
-- expiry). Erasing the account writes to those others (a pending gift's refund moves the
-- sender's balance; the ledger and events name them), so without their locks taken up front
-- it would hold its own row while it waits for theirs, and a friend's decline, unfriend or
-- expiry holding theirs while it waits for this row would deadlock with it (2026-12-01,
-- docs/gifts.md "Lock order"). The others are read before the locks: a request made in
-- between (it needs this row's lock, so none comes after) makes the attempt roll back to its
-- start, releasing what it locked, and read again. 401 if the account was deleted meanwhile.
create function api.lock_for_erasure(user_id uuid)
returns app.users
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_others uuid[];
    v_user app.users;
begin
    loop
        v_others := array(select case when f.user_low = lock_for_erasure.user_id then f.user_high else f.user_low end
                          from app.friendships f where lock_for_erasure.user_id in (f.user_low, f.user_high));
        begin
            perform from app.auth_tokens t where t.user_id = lock_for_erasure.user_id order by t.digest for update;
            perform from app.users u where u.id = any(v_others || lock_for_erasure.user_id) order by u.id for update;
            if not exists (select from app.friendships f
                           where lock_for_erasure.user_id in (f.user_low, f.user_high)
                             and (case when f.user_low = lock_for_erasure.user_id then f.user_high else f.user_low end) <> all(v_others)) then
                v_user := api.lock_user(lock_for_erasure.user_id);
                exit;
            end if;
            raise exception 'the account''s friendships changed before its lock' using errcode = 'serialization_failure';
        exception when serialization_failure then
            null;  -- this attempt's locks are released; read the others again
        end;
    end loop;
    return v_user;
end
$$;

-- Checks the account's password before a change: a problem reply (429 too_many_attempts after
-- max_failed_logins wrong passwords given with the account's tokens, or 403 wrong_password,
-- recorded as a 'password' failure without rolling back), or a reply with no code when the
-- password is right. Strangers' sign-in and code failures for the email do not count.
create function api.check_password(account app.users, password text, client_ip inet)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_wait integer := api.failed_attempts(account.email, 'check', check_password.client_ip, 'password');
begin
    if v_wait is not null then
        return api.problem(429, 'too_many_attempts', 'Too many wrong passwords; wait before trying again.',
                           retry_after => v_wait);
    end if;
    if account.password_hash <> crypt(check_password.password, account.password_hash) then
        perform api.failed_attempts(account.email, 'record', check_password.client_ip, 'password');
        return api.problem(403, 'wrong_password', 'The password is wrong.');
    end if;
    return api.ok(null);
end
$$;

-- Erases what DELETE /me cannot reach through a user_id column of its own table: rows keyed by
-- the account's addresses or naming it in someone else's stored answer. Guarantees: no sign-in
-- failure, mail, queued reset or deletion request or Idempotency-Key linked to the account (app.link_*
-- triggers: it held the address, or made the request) or under its current email stays, nor one
-- under an address it asked to change to (pending, or never confirmed) that no other account
-- holds; no sign-up code mailed to either (app.signup_codes); no 409 email_taken count stays for an address (api.address_bucket) the account signed
-- in or failed from. Other users' stored answers that mention the account's id (a friend's
-- accepted request shows its name) are deleted, so a retry of theirs runs again against what is
-- there now, as after the 24 h retention. The one key kept is keep_key, the DELETE /me
-- request's own: its stored 204 names nobody and answers a retried deletion. Call it before
-- the account's verification codes and sign-in addresses go: it reads them.
create function api.erase_account_traces(user_id uuid, email text, keep_key text)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_pending citext[] := array(select distinct v.email from app.email_verifications v
                                where v.user_id = erase_account_traces.user_id
                                  and not exists (select from app.users u where u.email = v.email));
    v_buckets inet[] := array(select api.address_bucket(a.client_ip) from app.login_addresses a
                              where a.user_id = erase_account_traces.user_id
                              union
                              select api.address_bucket(f.client_ip) from app.login_failures f
                              where f.client_ip is not null
                                and (f.user_id = erase_account_traces.user_id or f.email = erase_account_traces.email::citext
                                     or (f.user_id is null and f.email = any(v_pending))));
begin
    delete from app.taken_email_answers a where a.client_ip = any(v_buckets);
    delete from app.signup_codes c
    where c.email = erase_account_traces.email::citext or c.email = any(v_pending);
    delete from app.outgoing_mail m
    where m.user_id = erase_account_traces.user_id or m.recipient = erase_account_traces.email::citext
       or (m.user_id is null and m.recipient = any(v_pending));
    delete from app.login_failures f
    where f.user_id = erase_account_traces.user_id or f.email = erase_account_traces.email::citext
       or (f.user_id is null and f.email = any(v_pending));
    delete from app.password_reset_requests q
    where q.user_id = erase_account_traces.user_id or q.email = erase_account_traces.email::citext
       or (q.user_id is null and q.email = any(v_pending));
    delete from app.account_deletion_requests q
    where q.user_id = erase_account_traces.user_id or q.email = erase_account_traces.email::citext
       or (q.user_id is null and q.email = any(v_pending));
    delete from app.idempotency_keys k
    where (k.user_id = erase_account_traces.user_id or k.scope = 'email:' || lower(erase_account_traces.email)
           or (k.user_id is null and k.scope in (select 'email:' || lower(p::text) from unnest(v_pending) p))
           or strpos(k.reply::text, erase_account_traces.user_id::text) > 0)
      and (k.scope, k.key) is distinct from ('user:' || erase_account_traces.user_id, erase_account_traces.keep_key);
end
$$;

-- Turns a live account into the anonymous tombstone, under its lock and its friends'
-- (api.lock_for_erasure: a racing purchase ends before, and is kept, or after, and gets 401; a
-- friend's gift path cannot deadlock with it). Guarantees: everything that names or reaches the
-- person goes at once:
-- email, password, display name (now 'Deleted user') and its history, bio, avatar, settings, daily goal,
-- tokens (and the console sessions on them), reset and deletion codes and queued requests,
-- email verification codes and a pending address, mail and login
-- failures (to any address the account held or asked for), sign-in addresses and the 409
-- email_taken counts of those addresses, stored
-- Idempotency-Key answers (its own and others' naming it: api.erase_account_traces; keep_key
-- is the one kept, a DELETE /me request's own), friendships and requests (each recorded in
-- friendship_events as removed, cancelled or declined), blocks either way, reports about the
-- user and friend-request attempts, session tags, linked Apple and Google identities (an
-- Apple refresh token queued for revocation at Apple, app.apple_revocations), and the age gate's
-- birth month, consent and the consents asked of a parent (their addresses; the mails to them
-- went with the account's mail). What keeps the numbers true stays, tied
-- only to the anonymous row: sessions and ratings, tips shown, items, the ledger and its balance
-- (report.ledger_reconciliation stays empty), and reports the user made (moderators may still
-- act on them). The email may register again. Called by DELETE /me, the web deletion page
-- (api.account_deletion_confirm) and support (app.delete_user).
create function api.erase_account(user_id uuid, keep_key text)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := erase_account.user_id;
    v_user app.users := api.lock_for_erasure(v_user_id);
    v_pair app.friendships;
begin
    for v_pair in delete from app.friendships f where v_user_id in (f.user_low, f.user_high) returning * loop
        perform api.record_friendship_event(v_pair, v_user_id,
            case when v_pair.status = 'accepted' then 'removed'
                 when v_pair.requested_by = v_user_id then 'cancelled' else 'declined' end);
    end loop;
    delete from app.auth_tokens t where t.user_id = v_user_id;
    delete from app.password_resets r where r.user_id = v_user_id;
    delete from app.account_deletion_codes c where c.user_id = v_user_id;
    perform api.erase_account_traces(v_user_id, v_user.email, erase_account.keep_key);
    delete from app.email_verifications v where v.user_id = v_user_id;
    perform api.failed_attempts(v_user.email, 'clear');
    delete from app.login_addresses a where a.user_id = v_user_id;
    delete from app.client_sign_ins s where s.user_id = v_user_id;  -- the days and apps of their sign-ins (0095)
    delete from app.avatars a where a.user_id = v_user_id;
    delete from app.push_settings s where s.user_id = v_user_id;  -- push tokens went with the sign-ins
    perform api.erase_identities(v_user_id);  -- Apple refresh tokens queued for revocation at Apple
    delete from app.reminders r where r.user_id = v_user_id;
    delete from app.reminder_schedule r where r.user_id = v_user_id;
    delete from app.blocks b where v_user_id in (b.blocker, b.blocked);
    delete from app.user_reports r where r.reported = v_user_id;
    delete from app.friend_request_attempts a where a.user_id = v_user_id;
    delete from app.room_join_failures f where f.user_id = v_user_id;
    delete from app.parental_consents c where c.user_id = v_user_id;  -- the parent's address (the mails went above)
    update app.focus_sessions s set tag = null where s.user_id = v_user_id and s.tag is not null;
    update app.focus_sessions_archived a set tag = null where a.user_id = v_user_id and a.tag is not null;
    -- Every column of the account but the tombstone's own goes back to its default (null when it
    -- has none): email, password, bio, settings, and any column added later without a change
    -- here (2026-12-06). The tombstone keeps its id, balance (the ledger's sum), created_at.
    -- One statement, so its triggers see one change.
    execute format('update app.users set display_name = ''Deleted user'', deleted_at = now(), updated_at = now(), %s '
                   'where id = $1',
                   (select string_agg(format('%I = default', a.attname), ', ' order by a.attnum)
                    from pg_attribute a
                    where a.attrelid = 'app.users'::regclass and a.attnum > 0 and not a.attisdropped
                      and a.attname <> all (array['id', 'balance', 'created_at', 'display_name', 'deleted_at', 'updated_at'])))
    using v_user_id;
end
$$;

-- DELETE /me {password} or {provider, id_token, nonce?}
-- A guest has no password: its token is enough, and `password` may be left out (2026-12-07).
-- Guarantees: with the right password, the account becomes the anonymous tombstone
-- (api.erase_account says what goes and what stays). The account is locked first, so a racing
-- purchase ends before (and is kept) or after (and gets 401). Wrong password: 403
-- wrong_password and nothing changes.
-- Without a password (2026-12-07: an account made by Apple or Google has none it knows), a
-- fresh ID token of an identity linked to the account proves it instead, verified by the server
-- as at sign-in (params.identity, sql/api/014_social_sign_in.sql; Apple's needs its nonce):
-- one of another provider account is 403 identity_not_linked and nothing changes.
create function api.me_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_delete.token, suspended_too => true);
    v_body jsonb := api.only_keys(me_delete.body, array['password', 'provider', 'id_token', 'nonce']);
    v_by_identity boolean := v_body ? 'id_token' and not v_body ? 'password';
    v_password text := api.text_field(v_body, 'password', required => not v_by_identity and not api.is_guest(v_user_id));
    v_provider text;
    v_claims jsonb;
    v_user app.users := api.lock_for_erasure(v_user_id);
    v_check api.reply;
begin
    if v_by_identity then
        v_provider := api.choice(api.text_field(v_body, 'provider', max_length => 16), 'provider', array['apple', 'google']);
        perform api.text_field(v_body, 'id_token', max_length => 8192);
        perform api.text_field(v_body, 'nonce', required => v_provider = 'apple', max_length => 256);
        v_claims := api.verified_identity(me_delete.params, v_provider, 'id_token');
        if not exists (select from app.user_identities i
                       where i.user_id = v_user_id and i.provider = v_provider and i.subject = v_claims ->> 'subject') then
            return api.problem(403, 'identity_not_linked', 'That provider account is not linked to this account.');
        end if;
    elsif v_user.password_hash is not null then
        v_check := api.check_password(v_user, v_password, api.client_address(me_delete.params));
        if v_check.code is not null then
            return v_check;
        end if;
    end if;
    perform api.erase_account(v_user_id, me_delete.params ->> 'idempotency_key');
    return api.ok(null);
end
$$;
grant execute on function api.me_delete(text, jsonb, jsonb) to focus_api;
comment on function api.me_delete(text, jsonb, jsonb) is
    'DELETE /me: with the right password (else 403 wrong_password, nothing changed) or a linked identity''s fresh ID '
    'token (else 403 identity_not_linked), personal data goes and an '
    'anonymous tombstone keeps sessions and ledger adding up; the email may register again; racing purchases serialize.';
insert into api.endpoints (method, path, function, status, body, admission, errors)
values ('DELETE', '/me', 'api.me_delete', 204, 'json', 'always',
        '{identity_keys_unavailable, identity_nonce_mismatch, identity_not_linked, identity_token_expired, '
        'identity_token_invalid, identity_token_unknown_key, identity_token_wrong_audience, identity_token_wrong_issuer, '
        'invalid_field, sign_in_provider_unavailable, too_many_attempts, wrong_password}');

-- GET /me/export: one JSON document with everything stored about the caller (the bio in its
-- profile), sign-in addresses, failed sign-ins and mail included (GDPR art. 15 and 20). A failed sign-in shows its
-- address only when the account signed in from it too: anyone may fail with the account's email,
-- and a stranger's address is not the caller's data (art. 15(4)). Mail without its body: a reset
-- code in it would let whoever holds a token set the password without knowing it.
-- Stored Idempotency-Key answers (24 h) and events (7 days) are copies of what is here.
create function api.me_export_get(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_export_get.token, suspended_too => true);
    v_digest bytea := sha256(convert_to(me_export_get.token, 'UTF8'));
begin
    return api.ok(jsonb_build_object(
        'exported_at', api.iso(now()),
        'profile', api.profile(v_user_id),
        'items', coalesce((select jsonb_agg(jsonb_build_object('item', api.item_json(i), 'acquired_at', api.iso(ui.acquired_at))
                                            order by ui.acquired_at, i.id)
                           from app.user_items ui join app.shop_items i on i.id = ui.item_id
                           where ui.user_id = v_user_id), '[]'),
        'sessions', coalesce((select jsonb_agg(api.session_json(s) || jsonb_build_object(
                                                   'source', s.source, 'rated_at', api.iso(s.rated_at))
                                               order by s.started_at)
                              from app.user_sessions(v_user_id) s), '[]'),
        -- Views compacted past the horizon (0054) are their tip's newest, with how many earlier ones it stands for.
        'tips_shown', coalesce((select jsonb_agg(jsonb_build_object('tip', api.tip_json(t), 'session_id', v.session_id,
                                                                    'shown_at', api.iso(v.shown_at),
                                                                    'earlier_views', v.earlier_views) order by v.id)
                                from (select l.id, l.tip_id, l.session_id, l.shown_at, 0 as earlier_views
                                      from app.tip_views l where l.user_id = v_user_id
                                      union all
                                      select c.view_id, c.tip_id, c.session_id, c.shown_at, c.views - 1
                                      from app.tip_views_compacted c where c.user_id = v_user_id) v
                                join app.mindfulness_tips t on t.id = v.tip_id), '[]'),
        'friendships', coalesce((select jsonb_agg(jsonb_build_object(
                                     'id', f.id, 'status', f.status,
                                     'user', api.user_card_for(case when f.user_low = v_user_id then f.user_high else f.user_low end, v_user_id),
                                     'requested_by_me', f.requested_by = v_user_id,
                                     'created_at', api.iso(f.created_at), 'accepted_at', api.iso(f.accepted_at))
                                     order by f.created_at, f.id)
                                 from app.friendships f where v_user_id in (f.user_low, f.user_high)), '[]'),
        'ledger', coalesce((select jsonb_agg(jsonb_build_object('entry', c.entry, 'amount', c.amount, 'reason', c.reason,
                                                                'item_id', c.item_id, 'session_id', c.session_id,
                                                                'created_at', api.iso(c.created_at)) order by c.id)
                            from app.coin_ledger c where c.user_id = v_user_id), '[]'),
        -- Entries archived past the horizon survive as totals only (0050): their kind, item and sums.
        'ledger_archived', coalesce((select jsonb_agg(jsonb_build_object('entry', a.entry, 'item_id', a.item_id,
                                                                         'entries', a.entries, 'amount', a.coins,
                                                                         'before', api.iso(h.archived_before))
                                                      order by a.entry, a.item_id)
                                     from app.coin_ledger_archive_totals a cross join app.ledger_archive h
                                     where a.user_id = v_user_id), '[]'),
        'achievements', coalesce((select jsonb_agg(jsonb_build_object('code', ua.achievement_code, 'unlocked_at', api.iso(ua.unlocked_at))
                                                   order by ua.unlocked_at, ua.achievement_code)
                                  from app.user_achievements ua where ua.user_id = v_user_id), '[]'),
        'gifts', coalesce((select jsonb_agg(api.gift_json(g, v_user_id) order by g.created_at, g.id)
                           from app.gifts g where v_user_id in (g.sender_id, g.receiver_id)), '[]'),
        'tokens', coalesce((select jsonb_agg(api.token_json(t, v_digest) || jsonb_build_object('revoked_at', api.iso(t.revoked_at))
                                             order by t.created_at, t.id)
                            from app.auth_tokens t where t.user_id = v_user_id), '[]'),
        'blocks', coalesce((select jsonb_agg(jsonb_build_object('user_id', b.blocked, 'created_at', api.iso(b.created_at),
                                                                'display_name_then', b.blocker_display_name)
                                             order by b.created_at, b.blocked)
                            from app.blocks b where b.blocker = v_user_id), '[]'),
        'reports_made', coalesce((select jsonb_agg(api.report_json(r) order by r.created_at, r.id)
                                  from app.user_reports r where r.reporter = v_user_id), '[]'),
        'avatar', (select jsonb_build_object('content_type', a.content_type, 'data_base64', translate(encode(a.data, 'base64'), E'\n', ''),
                                             'updated_at', api.iso(a.updated_at))
                   from app.avatars a where a.user_id = v_user_id),
        'password_resets', coalesce((select jsonb_agg(jsonb_build_object('created_at', api.iso(r.created_at),
                                                                         'expires_at', api.iso(r.expires_at),
                                                                         'used_at', api.iso(r.used_at)) order by r.created_at)
                                     from app.password_resets r where r.user_id = v_user_id), '[]'),
        'sign_in_addresses', coalesce((select jsonb_agg(jsonb_build_object('address', host(a.client_ip),
                                                                           'last_success_at', api.iso(a.last_success_at))
                                                        order by a.last_success_at, a.client_ip)
                                       from app.login_addresses a where a.user_id = v_user_id), '[]'),
        'failed_sign_ins', coalesce((select jsonb_agg(jsonb_build_object('email', f.email, 'failed_at', api.iso(f.failed_at),
                                                                         'address', (select host(a.client_ip) from app.login_addresses a
                                                                                     where a.user_id = v_user_id and a.client_ip = f.client_ip))
                                                      order by f.failed_at, f.client_ip)
                                     from app.login_failures f
                                     where f.user_id = v_user_id or f.email = (select u.email from app.users u where u.id = v_user_id)), '[]'),
        'mail', coalesce((select jsonb_agg(jsonb_build_object('recipient', m.recipient, 'subject', m.subject,
                                                              'created_at', api.iso(m.created_at), 'sent_at', api.iso(m.sent_at))
                                           order by m.id)
                          from app.outgoing_mail m
                          where m.user_id = v_user_id or m.recipient = (select u.email from app.users u where u.id = v_user_id)), '[]'))
        -- Streak freezes (docs/streaks.md): each bought, its price, and the local day it covered.
        || jsonb_build_object(
        'streak_freezes', coalesce((select jsonb_agg(jsonb_build_object('id', f.id, 'price', f.price, 'bought_at', api.iso(f.bought_at),
                                                                        'covered_day', f.covered_day, 'used_at', api.iso(f.used_at))
                                                     order by f.bought_at, f.id)
                                    from app.streak_freezes f where f.user_id = v_user_id), '[]'))
        -- Linked Apple and Google accounts (docs/security.md): which, their email, since when;
        -- never the subject or a refresh token (a credential at Apple, not the person's data).
        || jsonb_build_object(
        'identities', coalesce((select jsonb_agg(api.identity_json(i) order by i.created_at, i.provider)
                                from app.user_identities i where i.user_id = v_user_id), '[]'))
        -- The age gate (2026-12-07, docs/guests.md): the birth month given, the consent recorded,
        -- and each consent asked of a parent (the address named, never the code).
        || jsonb_build_object(
        'age_gate', (select jsonb_build_object(
                         'birth_month', to_char(u.birth_month, 'YYYY-MM'), 'parental_consent_at', api.iso(u.parental_consent_at),
                         'consents_asked', coalesce((select jsonb_agg(jsonb_build_object(
                                                                'parent_email', c.parent_email, 'created_at', api.iso(c.created_at),
                                                                'expires_at', api.iso(c.expires_at), 'confirmed_at', api.iso(c.confirmed_at))
                                                            order by c.id)
                                                     from app.parental_consents c where c.user_id = v_user_id), '[]'))
                     from app.users u where u.id = v_user_id)));
end
$$;
grant execute on function api.me_export_get(text, jsonb, jsonb) to focus_api;
comment on function api.me_export_get(text, jsonb, jsonb) is
    'GET /me/export: profile and settings, items, sessions with ratings, tips shown, friendships and requests, '
    'ledger, achievements, tokens (metadata), blocks, reports made, avatar, reset codes (times only), sign-in addresses, failed '
    'sign-ins and mail (without bodies), linked Apple and Google accounts, in one document.';
insert into api.endpoints (method, path, function, admission, localized)
values ('GET', '/me/export', 'api.me_export_get', 'always', true);

-- POST /me/password {current_password, new_password}
-- Guarantees: wrong current password is 403 wrong_password (counted as a failed login) and
-- changes nothing; else the new hash is stored, every other token of the user and every unused
-- reset code stop working, and the calling token keeps working. A guest (no password) is 403
-- guest_not_allowed: POST /me/upgrade sets the first one.
create function api.me_password_update(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_password_update.token);
    v_body jsonb := api.only_keys(me_password_update.body, array['current_password', 'new_password']);
    v_current text := api.text_field(v_body, 'current_password');
    v_new text := api.password_field(v_body, 'new_password');
    v_user app.users := api.lock_account(v_user_id);
    v_check api.reply := api.check_password(v_user, v_current, api.client_address(me_password_update.params));
begin
    perform api.refuse_guest(v_user_id, 'Changing a password');
    if v_check.code is not null then
        return v_check;
    end if;
    update app.users u set password_hash = api.hash_password(v_new), updated_at = now() where u.id = v_user_id;
    update app.auth_tokens t set revoked_at = now()
    where t.user_id = v_user_id and t.revoked_at is null
      and t.digest <> sha256(convert_to(me_password_update.token, 'UTF8'));
    update app.password_resets r set used_at = now() where r.user_id = v_user_id and r.used_at is null;
    return api.ok(null);
end
$$;
grant execute on function api.me_password_update(text, jsonb, jsonb) to focus_api;
comment on function api.me_password_update(text, jsonb, jsonb) is
    'POST /me/password: 403 wrong_password changes nothing; else the password changes and every other token is revoked.';
insert into api.endpoints (method, path, function, status, body, errors)
values ('POST', '/me/password', 'api.me_password_update', 204, 'json',
        '{account_suspended, guest_not_allowed, invalid_field, too_many_attempts, weak_password, wrong_password}');

-- POST /me/email {password, email}
-- Guarantees: wrong password is 403 wrong_password and changes nothing. Else the address waits
-- for verification (Profile.pending_email) and a code is mailed to it; the account's email (the
-- sign-in and contact address) stays the old one until the code is confirmed
-- (POST /me/email/verify). The answer is the same whether or not another account has the
-- address (that account's owner is mailed a notice instead of the code), so it reveals nothing.
-- Asking for the current, verified address again calls a pending change off. A guest is 403
-- guest_not_allowed (POST /me/upgrade gives it its first email). 429
-- too_many_attempts (Retry-After) past max_reset_mails codes in reset_mail_window.
create function api.me_email_update(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_email_update.token);
    v_body jsonb := api.only_keys(me_email_update.body, array['password', 'email']);
    v_password text := api.text_field(v_body, 'password');
    v_email text := api.email_field(v_body);
    v_user app.users := api.lock_account(v_user_id);
    v_check api.reply := api.check_password(v_user, v_password, api.client_address(me_email_update.params));
    v_wait integer;
begin
    perform api.refuse_guest(v_user_id, 'Changing an email');
    if v_check.code is not null then
        return v_check;
    end if;
    if v_email::citext = v_user.email and v_user.email_verified_at is not null then
        delete from app.email_verifications v where v.user_id = v_user_id;  -- a pending change is called off
    else
        v_wait := api.send_email_verification(v_user_id, v_email);
        if v_wait is not null then
            return api.problem(429, 'too_many_attempts', 'Too many codes asked for; wait before asking again.', retry_after => v_wait);
        end if;
    end if;
    return api.ok(api.profile(v_user_id));
end
$$;
grant execute on function api.me_email_update(text, jsonb, jsonb) to focus_api;
comment on function api.me_email_update(text, jsonb, jsonb) is
    'POST /me/email: 403 wrong_password changes nothing; else a code is mailed to the new address, which becomes '
    'the email once verified; the answer (Profile with pending_email) is alike whether or not the address is taken.';
insert into api.endpoints (method, path, function, body, localized, errors)
values ('POST', '/me/email', 'api.me_email_update', 'json', true,
        '{account_suspended, guest_not_allowed, invalid_email, invalid_field, too_many_attempts, wrong_password}');

-- POST /me/email/verify {code}
-- Guarantees: the newest unused, unexpired code of the account, right: the address it was sent
-- to becomes the account's verified email (an email change takes effect now; unused reset codes
-- sent to the old address stop working); 409 email_taken if another account took the address
-- meanwhile. Wrong, expired, used or none: 400 invalid_verification_code; after
-- max_code_attempts wrong guesses the code stops working (ask for another: POST /me/email/resend).
create function api.me_email_verification_confirm(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_email_verification_confirm.token);
    v_body jsonb := api.only_keys(me_email_verification_confirm.body, array['code']);
    v_code text := btrim(api.text_field(v_body, 'code'));
    v_user app.users := api.lock_account(v_user_id);
    v_settings app.auth_settings;
    v_verification app.email_verifications;
begin
    select * into v_settings from app.auth_settings;
    select * into v_verification from app.email_verifications v
    where v.user_id = v_user_id and v.used_at is null and v.expires_at > now()
    order by v.id desc limit 1;
    if v_verification.id is null or v_verification.digest <> sha256(convert_to(v_code, 'UTF8')) then
        update app.email_verifications v
        set failed_attempts = v.failed_attempts + 1,
            used_at = case when v.failed_attempts + 1 >= v_settings.max_code_attempts then now() end
        where v.id = v_verification.id;
        return api.problem(400, 'invalid_verification_code', 'The code is wrong, expired or already used.');
    end if;
    update app.email_verifications v set used_at = now() where v.user_id = v_user_id and v.used_at is null;
    if v_verification.email <> v_user.email then
        begin
            update app.users u set email = v_verification.email, updated_at = now() where u.id = v_user_id;
        exception when unique_violation then
            perform api.fail(409, 'email_taken', 'An account with that email already exists.');
        end;
        update app.password_resets r set used_at = now() where r.user_id = v_user_id and r.used_at is null;
    end if;
    update app.users u set email_verified_at = now(), updated_at = now() where u.id = v_user_id;
    return api.ok(api.profile(v_user_id));
end
$$;
grant execute on function api.me_email_verification_confirm(text, jsonb, jsonb) to focus_api;
comment on function api.me_email_verification_confirm(text, jsonb, jsonb) is
    'POST /me/email/verify: the right code verifies the address it was sent to (an email change takes effect); '
    '400 invalid_verification_code otherwise, the code void after a few wrong guesses.';
insert into api.endpoints (method, path, function, body, localized, errors)
values ('POST', '/me/email/verify', 'api.me_email_verification_confirm', 'json', true,
        '{email_taken, invalid_field, invalid_verification_code}');

-- POST /me/email/resend
-- Guarantees: a new code for the address waiting for verification (a pending change, else the
-- account's own unverified email), earlier codes void; 409 nothing_to_verify when the email is
-- verified and no change waits; 429 too_many_attempts (Retry-After) past max_reset_mails codes
-- in reset_mail_window, so nobody can make the server mail an address without end. A guest (no
-- email) is 403 guest_not_allowed.
create function api.me_email_verification_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_email_verification_create.token);
    v_user app.users := api.lock_account(v_user_id);
    v_pending citext := api.pending_email(v_user_id);
    v_wait integer;
begin
    perform api.refuse_guest(v_user_id, 'Verifying an email');
    if v_pending is null and v_user.email_verified_at is not null then
        perform api.fail(409, 'nothing_to_verify', 'Your email is verified and no change waits for verification.');
    end if;
    v_wait := api.send_email_verification(v_user_id, coalesce(v_pending, v_user.email)::text);
    if v_wait is not null then
        return api.problem(429, 'too_many_attempts', 'Too many codes asked for; wait before asking again.', retry_after => v_wait);
    end if;
    return api.ok(null);
end
$$;
grant execute on function api.me_email_verification_create(text, jsonb, jsonb) to focus_api;
comment on function api.me_email_verification_create(text, jsonb, jsonb) is
    'POST /me/email/resend: a new code for the address waiting for verification; 409 nothing_to_verify; '
    '429 too_many_attempts past the mail throttle.';
insert into api.endpoints (method, path, function, status, errors)
values ('POST', '/me/email/resend', 'api.me_email_verification_create', 202,
        '{guest_not_allowed, invalid_field, nothing_to_verify, too_many_attempts}');

-- POST /auth/password-reset {email} (public)
-- Guarantees: always 202 with no body, for a known email, an unknown one and a throttled one
-- alike, after the same work: the email is queued in app.password_reset_requests (one insert,
-- whatever the email) and nothing else, so neither answer nor time tells whether it has an
-- account. The mailer's app.take_outgoing_mail() (app.send_password_resets) then gives a live
-- account under max_reset_mails codes in reset_mail_window a new 8-digit code (earlier unused
-- codes stop working), stored only as its SHA-256 digest, expiring after reset_code_ttl, by mail.
create function api.auth_password_reset_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(auth_password_reset_create.body, array['email']);
    v_email text := api.email_field(v_body);
begin
    insert into app.password_reset_requests (email) values (v_email);
    return api.ok(null);
end
$$;
grant execute on function api.auth_password_reset_create(text, jsonb, jsonb) to focus_api;
comment on function api.auth_password_reset_create(text, jsonb, jsonb) is
    'POST /auth/password-reset: always 202 after the same one insert; the mailer later sends a known live email '
    'under the throttle a one-time code (digest stored, 15 minutes, single use).';
insert into api.endpoints (method, path, function, access, status, body, errors)
values ('POST', '/auth/password-reset', 'api.auth_password_reset_create', 'public', 202, 'json',
        '{invalid_email, invalid_field}');

-- POST /auth/password-reset/confirm {email, code, new_password} (public)
-- Guarantees: a wrong, expired or used code (or an unknown email) is one 400 invalid_reset_code,
-- recorded as a 'code' failure without rolling back; the account's live code counts the wrong
-- guess and stops working after max_code_attempts of them. 429 too_many_attempts (the code not
-- even checked) only by this client address's own wrong codes (IPv6: its /64, across all
-- emails; api.failed_attempts): past first_guess_only_after_code_failures, for a second guess
-- at the same email; past max_code_failures_per_address, for every guess. So a person at a
-- school's NAT typing the code of their own mail gets in while a schoolmate guesses, and
-- strangers elsewhere never stop the owner's right code. Neither other failures of the email
-- nor sign-in failures count here. A right code works
-- once: the password changes, the email counts as verified (the code reached it), every token
-- of the user and every other code stop working, and the answer is {user, token, expires_at}.
create function api.auth_password_reset_confirm(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(auth_password_reset_confirm.body, array['email', 'code', 'new_password']);
    v_email text := api.email_field(v_body);
    v_code text := btrim(api.text_field(v_body, 'code'));
    v_new text := api.password_field(v_body, 'new_password');
    v_address inet := api.client_address(auth_password_reset_confirm.params);
    v_wait integer := api.failed_attempts(v_email, 'check', v_address, 'code');
    v_settings app.auth_settings;
    v_reset app.password_resets;
begin
    if v_wait is not null then
        return api.problem(429, 'too_many_attempts', 'Too many wrong codes; wait before trying again.', retry_after => v_wait);
    end if;
    select * into v_settings from app.auth_settings;
    select r.* into v_reset
    from app.password_resets r join app.users u on u.id = r.user_id
    where u.email = v_email::citext and r.used_at is null and r.expires_at > now()
    order by r.created_at desc limit 1
    for update of r;
    if v_reset.id is null or v_reset.digest <> sha256(convert_to(v_code, 'UTF8')) then
        update app.password_resets r
        set failed_attempts = r.failed_attempts + 1,
            used_at = case when r.failed_attempts + 1 >= v_settings.max_code_attempts then now() end
        where r.id = v_reset.id;
        perform api.failed_attempts(v_email, 'record', v_address, 'code');
        return api.problem(400, 'invalid_reset_code', 'The code is wrong, expired or already used.');
    end if;
    perform api.lock_account(v_reset.user_id);
    update app.password_resets r set used_at = now() where r.user_id = v_reset.user_id and r.used_at is null;
    update app.users u
    set password_hash = api.hash_password(v_new), email_verified_at = coalesce(u.email_verified_at, now()), updated_at = now()
    where u.id = v_reset.user_id;
    update app.auth_tokens t set revoked_at = now() where t.user_id = v_reset.user_id and t.revoked_at is null;
    perform api.failed_attempts(v_email, 'clear', v_address);
    return api.ok(jsonb_build_object('user', api.profile(v_reset.user_id))
                  || api.issue_token(v_reset.user_id, auth_password_reset_confirm.params));
end
$$;
grant execute on function api.auth_password_reset_confirm(text, jsonb, jsonb) to focus_api;
comment on function api.auth_password_reset_confirm(text, jsonb, jsonb) is
    'POST /auth/password-reset/confirm: one 400 invalid_reset_code for wrong, expired, used codes and unknown emails '
    '(a code is void after a few wrong guesses; 429 only for an address''s repeated or too many wrong codes); else a new password, '
    'the email verified, all other tokens revoked, a new token.';
insert into api.endpoints (method, path, function, access, body, localized, errors)
values ('POST', '/auth/password-reset/confirm', 'api.auth_password_reset_confirm', 'public', 'json', true,
        '{invalid_email, invalid_field, invalid_reset_code, too_many_attempts, weak_password}');

-- Device = {id, label, created_at, last_used_at, expires_at, current}. label is the User-Agent
-- the token was issued to; last_used_at is exact to token_touch_interval (an hour).
create function api.token_json(token app.auth_tokens, current_digest bytea)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('id', token.id, 'label', token.user_agent, 'created_at', api.iso(token.created_at),
                              'last_used_at', api.iso(token.last_used_at), 'expires_at', api.iso(token.expires_at),
                              'current', token.digest = token_json.current_digest)
$$;

-- GET /me/tokens: the caller's working tokens, most recently used first.
create function api.me_tokens_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_tokens_list.token);
    v_digest bytea := sha256(convert_to(me_tokens_list.token, 'UTF8'));
begin
    return api.ok(jsonb_build_object('tokens', coalesce(
        (select jsonb_agg(api.token_json(t, v_digest) order by t.last_used_at desc, t.created_at desc, t.id)
         from app.auth_tokens t
         where t.user_id = v_user_id and t.revoked_at is null and t.expires_at > now()), '[]')));
end
$$;
grant execute on function api.me_tokens_list(text, jsonb, jsonb) to focus_api;
comment on function api.me_tokens_list(text, jsonb, jsonb) is
    'GET /me/tokens: the caller''s working tokens (devices) with label, times and which one is calling.';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/tokens', 'api.me_tokens_list', '{account_suspended}');

-- DELETE /me/tokens/{id}: that token stops working at once (the calling one too, like logout).
-- Someone else's id, a revoked or expired token, and an unknown id are one 404 token_not_found.
create function api.me_tokens_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_tokens_delete.token);
    v_id uuid := api.uuid_field(me_tokens_delete.params, 'id');
begin
    update app.auth_tokens t set revoked_at = now()
    where t.id = v_id and t.user_id = v_user_id and t.revoked_at is null and t.expires_at > now();
    if not found then
        perform api.fail(404, 'token_not_found', 'You have no such working token.');
    end if;
    return api.ok(null);
end
$$;
grant execute on function api.me_tokens_delete(text, jsonb, jsonb) to focus_api;
comment on function api.me_tokens_delete(text, jsonb, jsonb) is
    'DELETE /me/tokens/{id}: revokes one of the caller''s tokens; anyone else''s is 404 token_not_found.';
insert into api.endpoints (method, path, function, status, errors)
values ('DELETE', '/me/tokens/{id}', 'api.me_tokens_delete', 204,
        '{account_suspended, invalid_field, token_not_found}');
