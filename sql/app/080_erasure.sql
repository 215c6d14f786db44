-- Erasure and retention: every row with personal data reaches its account by id, and the
-- sign-in records and mail are kept for a stated time only (docs/privacy.md). Bound and stored
-- in 0016_erasure_retention.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Fill user_id where the writer left it null: the account holding the row's email now (a
-- failure, a mail, a queued reset request), or the bearer of a 'user:<id>'
-- Idempotency-Key. A key taken over after its retention starts again (a new request, perhaps
-- for another account that took the address since).
create or replace function app.link_to_email_holder()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    -- TG_ARGV[0]: the row's email column (email, recipient), named by each binding.
    if new.user_id is null then
        new.user_id := (select u.id from app.users u where u.email = (to_jsonb(new) ->> tg_argv[0])::citext);
    end if;
    return new;
end
$$;

create or replace function app.link_idempotency_key()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'UPDATE' then
        if new.created_at is distinct from old.created_at then
            new.user_id := null;
        end if;
    end if;
    if new.user_id is null and new.scope ~ '^user:[0-9a-f-]{36}$' then
        new.user_id := substr(new.scope, 6)::uuid;
    elsif new.user_id is null and new.scope like 'email:%' then
        new.user_id := (select u.id from app.users u where u.email = substr(new.scope, 7)::citext);
    end if;
    return new;
end
$$;

-- Deletes sign-in failures, sign-in addresses and mail past their retention (the failures and
-- the mail by app.prune_partitioned: an expired day dropped whole, at most one of each a call;
-- mail not yet sent is kept), reset and deletion requests the
-- mailer never took once older than a reset code lives (reset_code_ttl: asked again by then),
-- 409 email_taken counts once outside taken_answer_window (the only reader) and sign-up codes
-- once outside every window that reads them, at most `batch` rows of each table (null: all);
-- returns how many rows. Run in batches by the prune job (api.job_step) or by a DBA.
create or replace function app.prune_personal_data(batch integer)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    -- Scalars, not an app.retention_settings row: this file is loaded (and checked) after the
    -- migrations of a database still before 0016, which creates that table.
    v_addresses_kept interval := (select r.login_addresses from app.retention_settings r);
    v_auth app.auth_settings;
    v_failures integer;
    v_addresses integer;
    v_mail integer;
    v_requests integer;
    v_deletion_requests integer;
    v_taken integer;
    v_signup_codes integer;
    v_guests integer;
begin
    select * into v_auth from app.auth_settings;
    delete from app.login_addresses a
    where a.ctid in (select o.ctid from app.login_addresses o
                     where o.last_success_at < now() - greatest(v_addresses_kept, v_auth.known_address_ttl) limit batch);
    get diagnostics v_addresses = row_count;
    delete from app.password_reset_requests q
    where q.ctid in (select o.ctid from app.password_reset_requests o where o.created_at < now() - v_auth.reset_code_ttl limit batch);
    get diagnostics v_requests = row_count;
    delete from app.account_deletion_requests q
    where q.ctid in (select o.ctid from app.account_deletion_requests o where o.created_at < now() - v_auth.reset_code_ttl limit batch);
    get diagnostics v_deletion_requests = row_count;
    delete from app.taken_email_answers a
    where a.ctid in (select o.ctid from app.taken_email_answers o where o.answered_at < now() - v_auth.taken_answer_window limit batch);
    get diagnostics v_taken = row_count;
    -- Sign-up codes once no bound reads them: the address's and the email's mail counts and the
    -- code's own life.
    delete from app.signup_codes c
    where c.ctid in (select o.ctid from app.signup_codes o
                     where o.created_at < now() - greatest(v_auth.taken_answer_window, v_auth.reset_mail_window, v_auth.reset_code_ttl)
                     limit batch);
    get diagnostics v_signup_codes = row_count;
    -- Guests made per address (0080) once the bound no longer reads them.
    delete from app.guest_creations g
    where g.ctid in (select o.ctid from app.guest_creations o
                     where o.created_at < now() - (select s.guest_window from app.guest_settings s) limit batch);
    get diagnostics v_guests = row_count;
    -- Last: the failures (0049) and the mail (0061) are partitioned by day, and a day dropped
    -- keeps its lock on the table until the caller commits. Unsent mail is kept whatever its age.
    v_failures := app.prune_partitioned('app.login_failures', batch);
    v_mail := app.prune_partitioned('app.outgoing_mail', batch);
    return v_failures + v_addresses + v_mail + v_requests + v_deletion_requests + v_taken + v_signup_codes + v_guests;
end
$$;
comment on function app.prune_personal_data(integer) is
    'Deletes login failures, login addresses and mail past app.retention_settings (never inside what '
    'throttling reads; unsent mail never; the failures and mail by app.prune_partitioned, a day dropped whole), reset requests older than reset_code_ttl, 409 counts older than taken_answer_window, guests made per '
    'address older than guest_window and sign-up codes older than every window that reads them, at most `batch` rows of each table (null: all). Run in batches by the prune job (api.job_step); a DBA may run it any time.';

-- Everything past its retention at once, in one transaction (a DBA's; the prune job batches).
create or replace function app.prune_personal_data()
returns integer
language sql
set search_path = public, pg_temp
as $$
    select app.prune_personal_data(null)
$$;
comment on function app.prune_personal_data() is
    'Deletes every sign-in record, mail and request past its retention in one transaction (app.prune_personal_data(null)); '
    'the prune job deletes them in batches instead. A DBA may run it any time.';
