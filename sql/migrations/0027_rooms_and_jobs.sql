-- 0027 focus rooms and scheduled jobs (2026-12-01).
--
-- A focus room: friends of a host who start one live session together at one server time.
-- The rules are the api functions' (sql/api/120_rooms.sql); docs/rooms.md says why. Here: the
-- room, its members (invited, joined, left) with each member's session and outcome, the room's
-- settings, the room bonus as a ledger entry of its own, the events members hear, and the
-- table of scheduled jobs the server runs (room settlement and the hourly prunes).

create table app.room_settings (
    singleton       boolean primary key default true check (singleton),
    max_members     integer not null default 5 check (max_members between 2 and 50),
    bonus_percent   integer not null default 20 check (bonus_percent between 0 and 1000),
    grace           interval not null default interval '5 minutes' check (grace between interval '0' and interval '1 day'),
    open_for        interval not null default interval '1 day' check (open_for >= interval '1 minute')
);
comment on table app.room_settings is
    'max_members: joined members per room, the host included; bonus_percent: when every member finishes, each earns '
    'this share of their own session''s coins on top; grace: how long after the plan''s end a finish still counts '
    'before the scheduled settlement calls the member vanished; open_for: how long a room waits to be started.';
insert into app.room_settings default values;

-- Join codes: 8 characters from an alphabet without 0/O, 1/I/L and U (30^8, about 6.6e11
-- codes), unique among the rooms waiting to start; a started or ended room keeps its code.
create table app.rooms (
    id               uuid primary key default gen_random_uuid(),
    code             text not null check (code ~ '^[2-9A-HJKMNP-TV-Z]{8}$'),
    host_id          uuid not null references app.users,
    planned_minutes  integer not null check (planned_minutes between 1 and 1440),
    status           text not null default 'open' check (status in ('open', 'running', 'completed', 'failed', 'cancelled')),
    created_at       timestamptz not null default now(),
    started_at       timestamptz,
    ended_at         timestamptz,
    check ((started_at is null) = (status in ('open', 'cancelled'))),
    check (status not in ('open', 'running') or ended_at is null),
    check (status not in ('completed', 'cancelled') or ended_at is not null),
    check (ended_at is null or ended_at >= created_at)
);
create unique index rooms_open_code on app.rooms (code) where status = 'open';
create index rooms_running on app.rooms (started_at) where status in ('running', 'failed') and ended_at is null;
create index rooms_open on app.rooms (created_at) where status = 'open';
comment on table app.rooms is
    'Focus rooms. open -> running (the host started it) -> completed (every member finished: bonus paid) or failed '
    '(a member gave up or vanished; ended_at set once every member has an outcome); open -> cancelled (the host '
    'left, or nobody started it within room_settings.open_for).';

create table app.room_members (
    room_id     uuid not null references app.rooms,
    user_id     uuid not null references app.users,
    state       text not null check (state in ('invited', 'joined', 'left')),
    invited_at  timestamptz,
    joined_at   timestamptz,
    left_at     timestamptz,
    session_id  uuid unique references app.focus_sessions,
    outcome     text check (outcome in ('completed', 'gave_up', 'vanished')),
    ended_at    timestamptz,
    primary key (room_id, user_id),
    check (case state when 'invited' then joined_at is null and left_at is null
                      when 'joined' then joined_at is not null and left_at is null
                      else joined_at is not null and left_at is not null end),
    check (state = 'joined' or session_id is null),
    check ((outcome is null) = (ended_at is null) and (outcome is null or session_id is not null))
);
create index room_members_user on app.room_members (user_id, room_id);
comment on table app.room_members is
    'Who was invited to, joined or left (before the start) a room; from the start on, each joined member''s live session '
    'and, once it ended, its outcome: completed (finished from the plan''s end to its grace), gave_up (abandoned or '
    'finished early) or vanished (no finish by the plan''s end plus the grace: settled by the scheduled job).';

-- The room bonus: its own ledger entry, naming its room, at most once per member and room.
alter table app.coin_ledger add column room_id uuid references app.rooms;
alter table app.coin_ledger drop constraint coin_ledger_entry_check;
alter table app.coin_ledger add constraint coin_ledger_entry_check check (entry in ('earn', 'spend', 'grant', 'bonus'));
alter table app.coin_ledger add constraint coin_ledger_bonus_has_room
    check ((entry = 'bonus') = (room_id is not null) and (entry <> 'bonus' or amount > 0));
create unique index coin_ledger_one_bonus_per_member on app.coin_ledger (room_id, user_id) where entry = 'bonus';

-- Events: the room's steps to its members (sql/app/120_rooms.sql decides who hears what).
--   room.invited    the invitee                          {room_id, code, user_id: the host}
--   room.joined     the other joined members             {room_id, user_id}
--   room.left       the other joined members             {room_id, user_id}
--   room.started    every joined member but the host     {room_id, started_at, session_id: theirs}
--   room.finished   the other joined members             {room_id, user_id}
--   room.gave_up    the other joined members             {room_id, user_id, outcome: gave_up or vanished}
--   room.ended      every joined member                  {room_id, status, bonus: theirs}
alter table app.events drop constraint events_type_check;
alter table app.events add constraint events_type_check check (type in (
    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
    'friend.removed', 'friend.updated', 'balance.changed',
    'catalog.changed', 'tips.changed', 'config.changed',
    'session.started', 'session.finished', 'session.abandoned', 'selection.changed', 'item.acquired',
    'profile.changed', 'settings.changed', 'block.added', 'block.removed',
    'report.created',
    'room.invited', 'room.joined', 'room.left', 'room.started', 'room.finished', 'room.gave_up', 'room.ended'));
alter table app.events drop constraint events_check;
alter table app.events add constraint events_check
    check ((user_id is null) = (type in ('catalog.changed', 'tips.changed', 'config.changed')));

create trigger room_members_events
after insert or update of state, outcome on app.room_members
for each row execute function app.room_members_events();
create trigger rooms_events
after update of status, ended_at on app.rooms
for each row when (new.status is distinct from old.status or new.ended_at is distinct from old.ended_at)
execute function app.rooms_events();

-- A member's live session ending (finish or abandon) gives the member an outcome.
create trigger focus_sessions_room_outcome
after update of ended_at on app.focus_sessions
for each row when (old.ended_at is null and new.ended_at is not null)
execute function app.focus_sessions_room_outcome();

-- Timed work the server runs (api.jobs_run, from its listener, once a minute): each job is due
-- at next_run_at and runs again `every` later. Several servers may call it: a job row is taken
-- with SKIP LOCKED, so each due run happens once. A DBA may run one at once with
-- `update app.scheduled_jobs set next_run_at = now() where name = '…'`.
create table app.scheduled_jobs (
    name         text primary key check (name in ('settle_rooms', 'prune')),
    every        interval not null check (every >= interval '1 minute'),
    next_run_at  timestamptz not null default now(),
    last_run_at  timestamptz,
    last_result  integer,
    last_error   text check (length(last_error) <= 1000)
);
comment on table app.scheduled_jobs is
    'Jobs api.jobs_run starts when due: settle_rooms (api.rooms_settle: vanished members, unstarted rooms) and prune '
    '(api.events_prune: events, Idempotency-Keys, sign-in records and mail past their retention).';
insert into app.scheduled_jobs (name, every) values ('settle_rooms', interval '1 minute'), ('prune', interval '1 hour');
