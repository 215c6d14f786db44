-- Operations: what the monitoring reads (deploy/prometheus/postgres-exporter.yml, logged in as
-- focus_monitor) and a DBA may too: how long the senders' due work has waited, and the
-- scheduled jobs. Both cost the same at any size (the outboxes' due indexes, four job rows).

-- What the mail and push senders have not sent yet although it is due. A sender that runs
-- takes due rows within seconds (MAIL_POLL_SECONDS 5, PUSH_POLL_INTERVAL 1), so a due row that
-- waits minutes means no sender runs, or none can reach the database or its service.
-- Due mail: a queued mail whose next attempt has come; a mail claimed longer than
-- claim_timeout ago (its sender died); and a reset or web deletion request, which only a
-- sender turns into a code and a mail (docs/mail.md). Due push: send_after has passed (quiet
-- hours and retries set it later, so they do not count as waiting).
create view report.outbox_backlog as
with mail (due_since) as (
    select m.next_attempt_at from app.outgoing_mail m where m.state = 'queued' and m.next_attempt_at <= now()
    union all
    select m.claimed_at + s.claim_timeout
    from app.outgoing_mail m cross join app.mail_settings s
    where m.state = 'sending' and m.claimed_at + s.claim_timeout <= now()
    union all
    select q.created_at from app.password_reset_requests q
    union all
    select q.created_at from app.account_deletion_requests q
), push (due_since) as (
    select p.send_after from app.push_outbox p where p.send_after <= now()
)
select 'mail'::text as outbox,
       (select count(*) from mail) as due,
       coalesce((select extract(epoch from now() - min(due_since)) from mail), 0)::double precision as oldest_due_seconds,
       (select count(*) from app.outgoing_mail m where m.state in ('queued', 'sending')) as unsent
union all
select 'push',
       (select count(*) from push),
       coalesce((select extract(epoch from now() - min(due_since)) from push), 0)::double precision,
       (select count(*) from app.push_outbox);
comment on view report.outbox_backlog is
    'One row per sender''s outbox (mail, push): due (rows a sender should have taken: due mail and claims older '
    'than claim_timeout, queued reset and deletion requests; pushes past send_after), oldest_due_seconds (how long '
    'the oldest of them has been due; 0 when none), unsent (every row not sent yet, due or later). Alerted on by '
    'deploy/prometheus/alerts.yml.';

-- The jobs of app.scheduled_jobs that every server's job runner starts when due (each on its
-- own, under its budget: sql/api/140_jobs.sql): one failing (its last run raised or ran past its
-- budget; it is tried again at its next run, the others still run), since when and how many runs
-- in a row, or overdue (no server has run it since it was due: every server down, or their
-- runners away from the database).
create view report.scheduled_job_status as
select j.name as job,
       j.every,
       j.budget,
       j.last_run_at,
       j.next_run_at,
       j.last_result,
       (j.last_error is not null) as failing,
       j.last_error,
       j.last_failed_at,
       j.failures as consecutive_failures,
       greatest(extract(epoch from now() - j.next_run_at), 0)::double precision as overdue_seconds,
       coalesce(extract(epoch from now() - j.last_run_at), -1)::double precision as seconds_since_last_run
from app.scheduled_jobs j;
comment on view report.scheduled_job_status is
    'One row per scheduled job (app.scheduled_jobs): budget (the most one run may take), failing (its last run '
    'raised or ran past its budget: last_error, canceling statement due to statement timeout for the latter), '
    'last_failed_at and consecutive_failures (runs in a row that failed; 0 after a success), overdue_seconds '
    '(how long past next_run_at with no run: no server runs the jobs), seconds_since_last_run (-1: never ran).';

-- The time partitions (app.partitioned_tables; docs/operations.md, "Pruning"): one row per
-- partition, oldest first, with its bounds as PostgreSQL prints them and its size.
create view report.partitions as
select t.parent,
       c.relname::text as partition,
       pg_get_expr(c.relpartbound, c.oid) as bounds,
       pg_total_relation_size(c.oid) as bytes,
       c.reltuples::bigint as estimated_rows
from app.partitioned_tables t
join pg_class pc on pc.relkind = 'p' and pc.relnamespace = 'app'::regnamespace and 'app.' || pc.relname = t.parent
join pg_inherits i on i.inhparent = pc.oid
join pg_class c on c.oid = i.inhrelid
order by t.parent, c.relpartbound is null, pg_get_expr(c.relpartbound, c.oid) like '%DEFAULT%', c.relname;
comment on view report.partitions is
    'The partitions of each time-partitioned table (app.partitioned_tables): bounds (FROM ... TO ..., or DEFAULT), bytes '
    '(with its indexes) and estimated_rows (from the last analyze; -1 before one).';
