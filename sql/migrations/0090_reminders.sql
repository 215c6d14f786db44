-- 0090 reminders (2026-12-07; docs/push.md, "Reminders"): pushes no one's action sends, written
-- on a schedule by the `reminders` job (api.job_step) or, for a room invite, at once: a streak
-- at risk at the person's local evening, today's goal reached, a friend's request still
-- unanswered after a day, a room invite. Each is a row of app.reminders, whose unique key
-- (person, local day, type, subject) makes a second run send nothing; the pushes go through
-- app.push_outbox (event_id null, reminder_id set) and the existing sender; a person with no
-- push token who allowed it gets a mail instead.
--
-- Who is due is app.reminder_schedule: one row per person and type with the time it is next
-- due, indexed on it, written by triggers when something makes a reminder possible (a session
-- ends, a friend request arrives), so a pass reads the due rows only, never every account. No
-- backfill: a streak already running gets its first reminder after its next session.
set local lock_timeout = '2s';

-- The reminder types: one row each, never deleted; muted through settings.push.muted like the
-- push types (api.push_settings_apply). loc_key: the text the phone shows (its own strings);
-- the mail's text in each language is app.reminder_texts.
create table app.reminder_types (
    type         text primary key check (type ~ '^reminder\.[a-z_]+$'),
    loc_key      text not null check (loc_key ~ '^[a-z_]+(\.[a-z_]+)+$'),
    description  text not null check (length(description) between 1 and 300)
);
comment on table app.reminder_types is
    'The reminders the server sends with no one acting (docs/push.md, "Reminders"): one row a type, never deleted; '
    'a person mutes one through settings.push.muted.';
insert into app.reminder_types (type, loc_key, description) values
    ('reminder.streak_at_risk', 'push.reminder.streak_at_risk',
     'At the person''s local evening: their streak ends at midnight, no session ran today and no freeze covers it.'),
    ('reminder.goal_reached', 'push.reminder.goal_reached', 'Once a day: today''s minutes reached the daily goal.'),
    ('reminder.friend_request', 'push.reminder.friend_request',
     'Once per request: a friend request still unanswered a day after it came (the asker''s name is the argument).'),
    ('reminder.room_invite', 'push.reminder.room_invite', 'At once: a friend invited the person to a focus room (the host''s name).');

-- The text of each reminder in each language (English, and each offered language's rows: the
-- Spanish ones are in the seed with the rest of Spanish). The mail writes title and body; a
-- phone shows its own strings for loc_key, made from these. {name}: the argument.
create table app.reminder_texts (
    type      text not null references app.reminder_types,
    language  text not null check (language ~ '^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$'),
    title     text not null check (length(title) between 1 and 120),
    body      text not null check (length(body) between 1 and 300),
    primary key (type, language)
);
comment on table app.reminder_texts is
    'Each reminder''s title and body in each language (en, and the offered languages); {name} is replaced by the argument.';
comment on column app.reminder_texts.language is 'personal: no; on erasure: kept (configuration)';
comment on column app.reminder_texts.title is 'personal: no; on erasure: kept (configuration)';
comment on column app.reminder_texts.body is 'personal: no; on erasure: kept (configuration)';
comment on column app.reminder_texts.type is 'personal: no; on erasure: kept (configuration)';
comment on column app.reminder_types.type is 'personal: no; on erasure: kept (configuration)';
comment on column app.reminder_types.loc_key is 'personal: no; on erasure: kept (configuration)';
comment on column app.reminder_types.description is 'personal: no; on erasure: kept (configuration)';
insert into app.reminder_texts (type, language, title, body) values
    ('reminder.streak_at_risk', 'en', 'Your streak ends at midnight', 'Focus for a few minutes today to keep your streak.'),
    ('reminder.goal_reached', 'en', 'Goal reached', 'You reached today''s focus goal. Well done!'),
    ('reminder.friend_request', 'en', 'A friend request is waiting', '{name} asked to be your friend yesterday.'),
    ('reminder.room_invite', 'en', 'Join a focus room', '{name} invited you to focus together.');

-- The rules every reminder obeys (a DBA edits the row): at most daily_cap a person's local day,
-- all types together; a friend request is reminded of friend_request_after it came; sent
-- reminders are kept `kept` (the cap and the unique key read them), then the job deletes them.
create table app.reminder_limits (
    one                   boolean primary key default true check (one),
    daily_cap             integer not null default 3 check (daily_cap between 0 and 24),
    friend_request_after  interval not null default interval '1 day' check (friend_request_after > interval '0'),
    kept                  interval not null default interval '3 days' check (kept >= interval '2 days')
);
comment on table app.reminder_limits is
    'One row: daily_cap (reminders a person gets a local day, all types), friend_request_after, kept (how long sent '
    'reminders stay, at least two days: the cap and the once-a-day key read them).';
insert into app.reminder_limits default values;

-- One row per reminder sent (or queued), the key that sends each once: a person, their local day,
-- the type and a subject ('' for once a day; the room's id for an invite). channel: push or
-- mail. Deleted after app.reminder_limits.kept and with the account.
create table app.reminders (
    id          bigint generated always as identity primary key,
    user_id     uuid not null references app.users on delete cascade,
    local_day   date not null,
    type        text not null references app.reminder_types,
    subject     text not null default '' check (length(subject) <= 40),
    channel     text not null check (channel in ('push', 'mail')),
    created_at  timestamptz not null default now(),
    unique (user_id, local_day, type, subject)
);
create index reminders_created on app.reminders (created_at);
comment on table app.reminders is
    'The reminders sent, one per person, local day, type and subject (the unique key: a run twice sends once); the '
    'daily cap counts them. Deleted after app.reminder_limits.kept and on erasure.';
comment on column app.reminders.type is 'personal: no (a reminder type); on erasure: deleted';
comment on column app.reminders.subject is 'personal: no (a room''s id or empty); on erasure: deleted';
comment on column app.reminders.channel is 'personal: no (push or mail); on erasure: deleted';

-- When each person is next due for a scheduled reminder type: the job reads the rows whose
-- due_at passed, by the index, and moves or deletes each. last_day (streak): the local day of
-- the latest session with minutes, whose next evening is due_at. seen_until (friend request):
-- the newest request already reminded of.
create table app.reminder_schedule (
    user_id     uuid not null references app.users on delete cascade,
    type        text not null references app.reminder_types,
    due_at      timestamptz not null,
    last_day    date,
    seen_until  timestamptz,
    primary key (user_id, type)
);
create index reminder_schedule_due on app.reminder_schedule (due_at);
comment on table app.reminder_schedule is
    'The scheduled reminders'' next due time per person and type (index reminder_schedule_due): the reminders job reads '
    'the due rows only. Deleted on erasure.';
comment on column app.reminder_schedule.type is 'personal: no (a reminder type); on erasure: deleted';

-- The person's evening (streak reminder) and whether a reminder may come by mail when they have
-- no push token (off until they allow it).
alter table app.push_settings
    add column evening time not null default time '19:00',
    add column mail_reminders boolean not null default false;
comment on column app.push_settings.evening is 'The local time of the streak reminder (settings.push.evening).';

-- A reminder's pushes use the outbox the events' do: no event, the reminder's id instead; its
-- type is a reminder type, not a push type, so the type's foreign key to app.push_types goes
-- (two writers: app.events_push from app.push_types, app.reminders_deliver from
-- app.reminder_types; api.push_claim reads the loc_key of either).
alter table app.push_outbox alter column event_id drop not null,
    add column reminder_id bigint,
    drop constraint push_outbox_type_fkey;
comment on column app.push_outbox.reminder_id is
    'The app.reminders row this push sends (event_id is then null); null for an event''s push.';

-- The mail a person gets instead of a push: kind reminder, params {title, body} in their language.
insert into app.mail_kinds (kind, description) values
    ('reminder', 'A reminder to a person with no push token who allowed mail (app.reminders_deliver).');

-- The job: every minute, a budget of 20 seconds (batches of 1000 due rows a step).
insert into app.scheduled_jobs (name, every, budget, description)
values ('reminders', interval '1 minute', interval '20 seconds',
        'app.reminders_pass: the due rows of app.reminder_schedule (streak at risk, goal reached, friend request), '
        '1000 a step; old reminders pruned.');

-- The triggers that make a reminder due (sql/app/180_reminders.sql).
create trigger focus_sessions_reminders
after insert or update of ended_at, minutes on app.focus_sessions
for each row when (new.ended_at is not null and new.minutes > 0
                   and current_setting('focus.bulk_import', true) is distinct from 'on')
execute function app.focus_sessions_reminders();

create trigger friendships_reminders
after insert on app.friendships
for each row when (new.status = 'pending')
execute function app.friendships_reminders();

create trigger room_members_reminders
after insert on app.room_members
for each row when (new.state = 'invited')
execute function app.room_members_reminders();
