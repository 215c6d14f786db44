-- The mail outbox's hand-off to a sender, and the reset codes it mails. Tables in
-- 0008_account_lifecycle.sql, 0015_account_safety.sql and 0024_mail_sender_own_devices.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- A code mailed to be typed back (reset, deletion, email verification): 8 random digits,
-- leading zeros kept; stored by its callers only as a SHA-256 digest.
create or replace function app.new_mail_code()
returns text
language sql volatile
set search_path = public, pg_temp
as $$ select lpad((('x' || encode(gen_random_bytes(4), 'hex'))::bit(32)::bigint % 100000000)::text, 8, '0') $$;

-- Turns queued reset requests into codes and mails: for a live account under max_reset_mails
-- codes in reset_mail_window, earlier unused codes stop working, a new 8-digit code is stored
-- only as its SHA-256 digest (expiring after reset_code_ttl) and a mail holding it is queued;
-- unknown emails and throttled ones get nothing. Returns how many requests it took.
create or replace function app.send_password_resets()
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_settings app.auth_settings;
    v_request app.password_reset_requests;
    v_user app.users;
    v_code text;
    v_taken integer := 0;
begin
    -- One at a time: a second caller waits for the first's mails to commit, so whoever called
    -- it finds every request queued before the call already mailed.
    perform pg_advisory_xact_lock(hashtext('app.send_password_resets'));
    select * into v_settings from app.auth_settings;
    for v_request in delete from app.password_reset_requests q returning * loop
        v_taken := v_taken + 1;
        select * into v_user from app.users u where u.email = v_request.email and u.deleted_at is null;
        continue when v_user.id is null
            or (select count(*) from app.password_resets r
                where r.user_id = v_user.id and r.created_at > now() - v_settings.reset_mail_window) >= v_settings.max_reset_mails;
        v_code := app.new_mail_code();
        update app.password_resets r set used_at = now() where r.user_id = v_user.id and r.used_at is null;
        insert into app.password_resets (user_id, digest, expires_at)
        values (v_user.id, sha256(convert_to(v_code, 'UTF8')), now() + v_settings.reset_code_ttl);
        insert into app.outgoing_mail (recipient, subject, body, kind, params)
        values (v_user.email, 'Your Focus Island password reset code',
                format(E'Your code is %s. It works once, within %s minutes.\nIf you did not ask for it, ignore this mail: your password stays as it is.',
                       v_code, extract(epoch from v_settings.reset_code_ttl)::integer / 60),
                'password_reset',
                jsonb_build_object('code', v_code, 'minutes', extract(epoch from v_settings.reset_code_ttl)::integer / 60,
                                   'language', app.person_language(v_user.id, null)));
    end loop;
    return v_taken;
end
$$;
comment on function app.send_password_resets() is
    'Mailer tool (focus_owner; app.take_outgoing_mail calls it first): queued reset requests become codes and mails '
    'for live accounts under the mail throttle; unknown emails get nothing.';

-- An operator's own mailer (docs/mail.md): first turns queued reset and deletion requests into
-- mails, then takes up to `batch` queued mails, oldest first, and marks them sent with body and
-- params blanked in the same transaction; concurrent callers skip each other's rows.
create or replace function app.take_outgoing_mail(batch integer default 50)
returns table (id bigint, recipient citext, subject text, body text, created_at timestamptz)
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.send_password_resets();
    perform app.send_deletion_codes();
    return query
    with taken as (
        select m.id, m.recipient, m.subject, m.body, m.created_at
        from app.outgoing_mail m
        where m.state = 'queued'
        order by m.id
        limit take_outgoing_mail.batch
        for update skip locked
    ), marked as (
        update app.outgoing_mail m set state = 'sent', sent_at = now(), body = '(sent)', params = '{}'
        from taken t where m.id = t.id
    )
    select t.id, t.recipient, t.subject, t.body, t.created_at from taken t order by t.id;
end
$$;
comment on function app.take_outgoing_mail(integer) is
    'An operator''s own mailer (focus_owner), instead of focus-island mail: up to `batch` queued mails, oldest first, '
    'marked sent with body and params blanked in the same transaction; concurrent mailers skip each other''s rows.';

-- focus-island mail's claim: first turns queued reset and deletion requests into mails, then claims up to
-- `batch` mails, oldest first: queued ones that are due, and claims older than
-- mail_settings.claim_timeout (a sender that died mid-batch). Each becomes 'sending' with
-- claimed_at = now() and one more attempt, in this transaction; FOR UPDATE SKIP LOCKED makes
-- concurrent senders claim disjoint rows, and a claimed row is no longer due, so two senders
-- never hold the same row. Returns what the templates need.
create or replace function app.claim_outgoing_mail(batch integer default 20)
returns table (id bigint, kind text, recipient citext, subject text, body text, params jsonb, attempts integer)
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_claim_timeout interval := (select s.claim_timeout from app.mail_settings s);
begin
    perform app.send_password_resets();
    perform app.send_deletion_codes();
    return query
    with due as (
        select m.id
        from app.outgoing_mail m
        where m.state in ('queued', 'sending')
          and ((m.state = 'queued' and m.next_attempt_at <= now())
               or (m.state = 'sending' and m.claimed_at < now() - v_claim_timeout))
        order by m.id
        limit greatest(claim_outgoing_mail.batch, 0)
        for update skip locked
    ), claimed as (
        update app.outgoing_mail m set state = 'sending', claimed_at = now(), attempts = m.attempts + 1
        from due d where m.id = d.id
        returning m.id, m.kind, m.recipient, m.subject, m.body, m.params, m.attempts
    )
    select c.id, c.kind, c.recipient, c.subject, c.body, c.params, c.attempts from claimed c order by c.id;
end
$$;
comment on function app.claim_outgoing_mail(integer) is
    'focus-island mail (focus_owner): claims up to `batch` due mails (queued and due, or claimed longer than '
    'mail_settings.claim_timeout ago) as sending, one more attempt each; concurrent senders claim disjoint rows.';

-- A claimed mail the SMTP server accepted: sent now, its body and params blanked. False (and
-- nothing changed) when the row is not being sent any more (erased, or recorded already).
create or replace function app.outgoing_mail_sent(id bigint)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.outgoing_mail m
    set state = 'sent', sent_at = now(), body = '(sent)', params = '{}', last_error = null
    where m.id = outgoing_mail_sent.id and m.state = 'sending';
    return found;
end
$$;
comment on function app.outgoing_mail_sent(bigint) is
    'focus-island mail (focus_owner): a claimed mail was accepted; sent now, body and params blanked.';

-- A claimed mail that was not accepted, with the answer (an SMTP code and its text, or the
-- transport's error; cut to 1000 characters). Permanent (a 5xx answer, a refused recipient):
-- failed now, never tried again. Otherwise (a 4xx answer, a lost connection): queued again
-- after retry_delay doubled for each earlier attempt, at most max_retry_delay, unless this was
-- attempt max_attempts, which fails it. A failed mail's body and params are blanked. Returns
-- the row's new state, or null when it is not being sent any more.
create or replace function app.outgoing_mail_failed(id bigint, permanent boolean, error text)
returns text
language plpgsql
set search_path = public, pg_temp
as $$
declare
    -- Scalars, not an app.mail_settings row: this file is loaded (and checked) after the
    -- migrations of a database still before 0024, which creates that table.
    v_max_attempts integer := (select s.max_attempts from app.mail_settings s);
    v_retry_delay interval := (select s.retry_delay from app.mail_settings s);
    v_max_retry_delay interval := (select s.max_retry_delay from app.mail_settings s);
    v_attempts integer;
    v_done boolean;
begin
    select m.attempts into v_attempts from app.outgoing_mail m
    where m.id = outgoing_mail_failed.id and m.state = 'sending'
    for update;
    if v_attempts is null then
        return null;
    end if;
    v_done := outgoing_mail_failed.permanent or v_attempts >= v_max_attempts;
    update app.outgoing_mail m
    set state = case when v_done then 'failed' else 'queued' end,
        failed_at = case when v_done then now() end,
        next_attempt_at = case when v_done then m.next_attempt_at
                               else now() + least(v_max_retry_delay, v_retry_delay * power(2, least(v_attempts, 20) - 1)) end,
        last_error = left(coalesce(outgoing_mail_failed.error, 'unknown error'), 1000),
        body = case when v_done then '(failed)' else m.body end,
        params = case when v_done then '{}' else m.params end
    where m.id = outgoing_mail_failed.id;
    return case when v_done then 'failed' else 'queued' end;
end
$$;
comment on function app.outgoing_mail_failed(bigint, boolean, text) is
    'focus-island mail (focus_owner): a claimed mail was refused. Permanent (5xx) or its last attempt: failed, '
    'never retried; else queued again after a doubling delay. Returns the new state.';

-- A claimed mail the sender did not try (the SMTP server could not be reached for an earlier
-- mail of the batch, or the sender was stopped): queued again after retry_delay, its attempt
-- not counted, `error` kept as the last error. True when a claimed row took it.
create or replace function app.outgoing_mail_release(id bigint, error text)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.outgoing_mail m
    set state = 'queued', attempts = greatest(m.attempts - 1, 0),
        next_attempt_at = now() + (select s.retry_delay from app.mail_settings s),
        last_error = left(coalesce(outgoing_mail_release.error, m.last_error), 1000)
    where m.id = outgoing_mail_release.id and m.state = 'sending';
    return found;
end
$$;
comment on function app.outgoing_mail_release(bigint, text) is
    'focus-island mail (focus_owner): a claimed mail it did not try goes back to the queue, due after retry_delay, '
    'the attempt not counted.';

-- A bounce that arrived after the mail was accepted (a delivery status notification naming the
-- Message-ID <outgoing-mail-ID@...> the sender wrote): the mail is recorded as failed with the
-- report's text. True when a sent or sending row took it.
create or replace function app.outgoing_mail_bounced(id bigint, error text)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.outgoing_mail m
    set state = 'failed', sent_at = null, failed_at = now(), body = '(failed)', params = '{}',
        last_error = left(coalesce(outgoing_mail_bounced.error, 'bounced'), 1000)
    where m.id = outgoing_mail_bounced.id and m.state in ('sent', 'sending');
    return found;
end
$$;
comment on function app.outgoing_mail_bounced(bigint, text) is
    'An operator''s bounce handling (focus_owner): a mail reported undeliverable after it was accepted is failed, '
    'with the report''s text.';
