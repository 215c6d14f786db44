-- The mail outbox's hand-off to a sender, and the reset codes it mails. Tables in
-- 0008_account_lifecycle.sql and 0015_account_safety.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

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
        v_code := lpad((('x' || encode(gen_random_bytes(4), 'hex'))::bit(32)::bigint % 100000000)::text, 8, '0');
        update app.password_resets r set used_at = now() where r.user_id = v_user.id and r.used_at is null;
        insert into app.password_resets (user_id, digest, expires_at)
        values (v_user.id, sha256(convert_to(v_code, 'UTF8')), now() + v_settings.reset_code_ttl);
        insert into app.outgoing_mail (recipient, subject, body)
        values (v_user.email, 'Your Focus Island password reset code',
                format(E'Your code is %s. It works once, within %s minutes.\nIf you did not ask for it, ignore this mail: your password stays as it is.',
                       v_code, extract(epoch from v_settings.reset_code_ttl)::integer / 60));
    end loop;
    return v_taken;
end
$$;
comment on function app.send_password_resets() is
    'Mailer tool (focus_owner; app.take_outgoing_mail calls it first): queued reset requests become codes and mails '
    'for live accounts under the mail throttle; unknown emails get nothing.';

-- The mailer's call: first turns queued reset and deletion requests into mails, then takes a batch.
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
        where m.sent_at is null
        order by m.id
        limit take_outgoing_mail.batch
        for update skip locked
    ), marked as (
        update app.outgoing_mail m set sent_at = now(), body = '(sent)'
        from taken t where m.id = t.id
    )
    select t.id, t.recipient, t.subject, t.body, t.created_at from taken t order by t.id;
end
$$;
comment on function app.take_outgoing_mail(integer) is
    'Mailer tool (focus_owner): up to `batch` unsent mails, oldest first, marked sent with their body '
    'blanked in the same transaction; concurrent mailers skip each other''s rows.';
