-- What the web pages need of schema app (docs/web.md): the display name history, the
-- report.created event to moderators, the mailer's step that turns web deletion requests into
-- codes, and support's account deletion. Tables and bindings in 0025_web.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Keeps app.display_name_history: a row for each name a live account takes (at sign-up and
-- on every change, whoever made it); all of them go when the account is deleted.
create or replace function app.display_name_history_record()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if new.deleted_at is not null then
        if tg_op = 'UPDATE' and old.deleted_at is null then
            delete from app.display_name_history h where h.user_id = new.id;
        end if;
    elsif tg_op = 'INSERT' or new.display_name is distinct from old.display_name then
        insert into app.display_name_history (user_id, display_name) values (new.id, new.display_name);
    end if;
    return null;
end
$$;

-- report.created to every moderator when a report is filed: {report_id, reason}, nothing that
-- names a person. No moderator, no event.
create or replace function app.tell_moderators_of_report()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if exists (select from app.moderators) then
        insert into app.events (user_id, type, payload)
        select m.user_id, 'report.created', jsonb_build_object('report_id', new.id, 'reason', new.reason)
        from app.moderators m
        order by m.user_id;
    end if;
    return null;
end
$$;

-- Turns queued web deletion requests into codes and mails, under the reset's rules: for a
-- live account under max_reset_mails deletion codes in reset_mail_window, earlier unused codes
-- stop working, a new 8-digit code is stored only as its SHA-256 digest (expiring after
-- reset_code_ttl) and a mail holding it is queued; unknown emails and throttled ones get
-- nothing. Returns how many requests it took.
create or replace function app.send_deletion_codes()
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_settings app.auth_settings;
    -- A record, not app.account_deletion_requests: this file is loaded (and checked) after the
    -- migrations of a database still before 0025, which creates that table.
    v_request record;
    v_user app.users;
    v_code text;
    v_taken integer := 0;
begin
    -- One at a time, as app.send_password_resets.
    perform pg_advisory_xact_lock(hashtext('app.send_deletion_codes'));
    select * into v_settings from app.auth_settings;
    for v_request in delete from app.account_deletion_requests q returning * loop
        v_taken := v_taken + 1;
        select * into v_user from app.users u where u.email = v_request.email and u.deleted_at is null;
        continue when v_user.id is null
            or (select count(*) from app.account_deletion_codes c
                where c.user_id = v_user.id and c.created_at > now() - v_settings.reset_mail_window) >= v_settings.max_reset_mails;
        v_code := app.new_mail_code();
        update app.account_deletion_codes c set used_at = now() where c.user_id = v_user.id and c.used_at is null;
        insert into app.account_deletion_codes (user_id, digest, expires_at)
        values (v_user.id, sha256(convert_to(v_code, 'UTF8')), now() + v_settings.reset_code_ttl);
        insert into app.outgoing_mail (recipient, subject, body, kind, params)
        values (v_user.email, 'Your Focus Island account deletion code',
                format(E'Your code is %s. Entered on the account deletion page within %s minutes, it deletes your Focus Island account.\n'
                       'If you did not ask for it, ignore this mail: your account stays as it is.',
                       v_code, extract(epoch from v_settings.reset_code_ttl)::integer / 60),
                'deletion_code',
                jsonb_build_object('code', v_code, 'minutes', extract(epoch from v_settings.reset_code_ttl)::integer / 60,
                                   'language', app.person_language(v_user.id, null, v_request.language)));
    end loop;
    return v_taken;
end
$$;
comment on function app.send_deletion_codes() is
    'Mailer tool (focus_owner; app.take_outgoing_mail calls it first): queued web deletion requests become codes '
    'and mails for live accounts under the reset''s mail throttle; unknown emails get nothing.';

-- Support deletes an account in psql (as focus_owner), for someone who cannot use the app or
-- the web page: the same tombstone DELETE /me leaves (api.erase_account) and one
-- app.account_deletions row with the reason and the DBA's login. An unknown or already
-- deleted account, or a reason outside 1 to 1000 characters, is an error and changes nothing.
--   select app.delete_user('…', 'Asked by mail to support on 2026-12-01, identity checked');
create or replace function app.delete_user(user_id uuid, reason text)
returns bigint
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_user app.users;
    v_audit bigint;
begin
    if length(btrim(coalesce(delete_user.reason, ''))) not between 1 and 1000 then
        raise exception 'app.delete_user: a reason of 1 to 1000 characters is required' using errcode = 'check_violation';
    end if;
    select * into v_user from app.users u where u.id = delete_user.user_id and u.deleted_at is null;
    if v_user.id is null then
        raise exception 'app.delete_user: no live account %', delete_user.user_id using errcode = 'no_data_found';
    end if;
    perform api.erase_account(delete_user.user_id, null);
    insert into app.account_deletions (user_id, via, reason)
    values (delete_user.user_id, 'support', btrim(delete_user.reason))
    returning id into v_audit;
    return v_audit;
end
$$;
comment on function app.delete_user(uuid, text) is
    'Support tool (focus_owner, in psql): deletes an account as DELETE /me does (the anonymous tombstone stays) '
    'and records who and why in app.account_deletions; returns that row''s id.';
