-- The mail outbox's hand-off to a sender. Table in 0008_account_lifecycle.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

create or replace function app.take_outgoing_mail(batch integer default 50)
returns table (id bigint, recipient citext, subject text, body text, created_at timestamptz)
language sql
set search_path = public, pg_temp
as $$
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
    select t.id, t.recipient, t.subject, t.body, t.created_at from taken t order by t.id
$$;
comment on function app.take_outgoing_mail(integer) is
    'Mailer tool (focus_owner): up to `batch` unsent mails, oldest first, marked sent with their body '
    'blanked in the same transaction; concurrent mailers skip each other''s rows.';
