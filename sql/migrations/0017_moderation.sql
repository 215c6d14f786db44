-- 0017 moderation: moderators (people with accounts, granted by a DBA), suspensions and bans,
-- an audit of every moderator action, reports with a status (open, actioned, dismissed), at
-- most one open report per reporter and reported user, and a daily limit of reports per reporter.
-- The rules are the api functions' (sql/api/110_moderation.sql); docs/moderation.md says why.

-- Who may moderate. A DBA grants it as focus_owner:
--   insert into app.moderators (user_id, note) select id, 'support team' from app.users where email = '…';
-- and takes it back with a delete. granted_by is the database login that granted it.
create table app.moderators (
    user_id     uuid primary key references app.users on delete cascade,
    note        text check (length(note) between 1 and 200),
    granted_at  timestamptz not null default now(),
    granted_by  text not null default current_user
);
comment on table app.moderators is
    'Accounts that may call the api.moderation_* functions (/moderation/… routes). Granted and revoked by a DBA in SQL.';

-- One row per user ever suspended or banned: the current end of it. A ban is until 'infinity';
-- a suspension that has ended stays (until in the past) and restricts nothing.
create table app.suspensions (
    user_id     uuid primary key references app.users on delete cascade,
    until       timestamptz not null,
    updated_at  timestamptz not null default now()
);
comment on table app.suspensions is
    'A user''s suspension: 403 account_suspended on every route but export, deletion and logout while until > now() '
    '(''infinity'' for a ban); hidden from boards and friends lists meanwhile. Written by api.moderation_users_suspend/_ban.';

-- Every moderator action, append-only: who, when, what, about whom, and why (required).
create table app.moderation_actions (
    id          uuid primary key default gen_random_uuid(),
    created_at  timestamptz not null default now(),
    moderator   uuid not null references app.users,
    action      text not null check (action in ('rename', 'remove_avatar', 'suspend', 'ban', 'resolve_report')),
    user_id     uuid not null references app.users,
    report_id   uuid references app.user_reports on delete set null,
    reason      text not null check (length(reason) between 1 and 1000),
    details     jsonb not null default '{}' check (jsonb_typeof(details) = 'object')
);
create index moderation_actions_user on app.moderation_actions (user_id, created_at);
create index moderation_actions_time on app.moderation_actions (created_at);
comment on table app.moderation_actions is
    'Audit of moderator actions (append-only): the moderator, the action, the user acted on, the report it resolved, '
    'the reason given and what changed (details: the new name, the suspension''s end, the report''s status).';

-- Append-only but for the erasure of a deleted user's details (sql/app/100_moderation.sql).
create trigger moderation_actions_append_only
before update or delete on app.moderation_actions
for each row execute function app.moderation_actions_append_only();

create trigger moderation_actions_erase
after update of deleted_at on app.users
for each row when (old.deleted_at is null and new.deleted_at is not null)
execute function app.moderation_actions_erase();

-- Reports get a status. Resolved means when, by whom (null when resolved by this migration)
-- and why; an open report has none of it.
alter table app.user_reports
    add column status text not null default 'open' check (status in ('open', 'actioned', 'dismissed')),
    add column resolved_at timestamptz,
    add column resolved_by uuid references app.users,
    add column resolution text check (length(resolution) between 1 and 1000),
    add constraint user_reports_resolved check ((status = 'open') = (resolved_at is null)
                                                and (status = 'open') = (resolution is null)
                                                and (status <> 'open' or resolved_by is null));

-- At most one open report per reporter and reported user: older duplicates already open are
-- dismissed first (the newest stays open).
update app.user_reports r
set status = 'dismissed', resolved_at = now(), resolution = 'Duplicate of a newer open report by the same reporter (migration 0017).'
where r.status = 'open'
  and exists (select from app.user_reports n
              where n.reporter = r.reporter and n.reported = r.reported and n.status = 'open'
                and (n.created_at, n.id) > (r.created_at, r.id));
create unique index user_reports_one_open on app.user_reports (reporter, reported) where status = 'open';
comment on index app.user_reports_one_open is
    'One open report per reporter and reported user: reporting again answers the open one (api.users_report_create).';
-- The moderators' queue in order, by status; the reporter's daily count.
create index user_reports_status on app.user_reports (status, created_at, id);
create index user_reports_reporter on app.user_reports (reporter, created_at);

create table app.moderation_settings (
    singleton              boolean primary key default true check (singleton),
    max_reports_per_day    integer not null check (max_reports_per_day > 0)
);
comment on table app.moderation_settings is
    'Reports: at most max_reports_per_day new reports per reporter in any 24 hours (429 too_many_reports).';
insert into app.moderation_settings (max_reports_per_day) values (20);
