-- 0064 registries (2026-12-06; docs/operations.md, "Registries"): the event types, the ledger's
-- entries and the mail's kinds become rows of a table each, with what each one means, instead of
-- lists that each new value made a migration restate whole (the event types' seven times, the
-- entries' four, the mail kinds' three). A new value is now one row in one migration: a
-- statement trigger on the registry writes the column's check again from the rows
-- (app.registry_guards_refresh, sql/app/170_registries.sql), NOT VALID, without reading a row.
-- The checks stay where they were (the domain app.event_type, the table checks of app.events,
-- app.coin_ledger, app.coin_ledger_archive_totals, app.outgoing_mail): measured, a foreign key
-- to the registry costs an insert more than the check does, and app.events, partitioned, cannot
-- take one NOT VALID. Rows are never deleted nor their keys changed (a value old rows hold must
-- stay valid): a value no longer written is marked retired.
--
-- The scheduled jobs had the same list (scheduled_jobs_name_check, written four times), of the
-- rows of app.scheduled_jobs itself: that table is the jobs' registry, so the check goes and
-- each job says what it does. A row api.job_step does not know fails its runs with 22023, shown
-- by report.scheduled_job_status; sql/tests/170_registries.sql holds the two lists equal.
--
-- Only new tables are written here but for app.scheduled_jobs (five rows) and app.push_types
-- (three): this migration takes no lock on app.events, app.coin_ledger or app.outgoing_mail (the
-- checks already name exactly these rows, so the triggers' refresh writes nothing).
set local lock_timeout = '2s';

create table app.event_types (
    type         text primary key check (type ~ '^[a-z_]+(\.[a-z_]+)+$'),
    broadcast    boolean not null default false,
    description  text not null check (length(description) between 1 and 300),
    retired_on   date
);
comment on table app.event_types is
    'The types of app.events (the domain app.event_type''s check is written from these rows, and events_check from '
    'the broadcast ones): who hears it and why. One row a type, never deleted; docs/contributing.md, "Recipe: add an '
    'event type".';
comment on column app.event_types.broadcast is
    'One row for everyone (user_id null), never a row per person: app.events.events_check.';
comment on column app.event_types.retired_on is
    'The day nothing wrote it any more (null: in use); kept so the rows written before stay valid.';

insert into app.event_types (type, broadcast, description) values
    ('friend_request.received', false, 'The receiver of a friend request: someone asked to be friends.'),
    ('friend_request.accepted', false, 'The sender of a friend request: it was accepted.'),
    ('friend_request.ended', false, 'The other side of a friend request: declined or cancelled, without saying which.'),
    ('friend.removed', false, 'The friend left behind when a friendship is removed.'),
    ('friend.updated', false, 'Every friend of a person whose name, shown items, avatar or minutes today changed.'),
    ('balance.changed', false, 'The person, every device, whenever the balance moves (with the balance).'),
    ('catalog.changed', true, 'Everyone: the shop''s catalog has a new version.'),
    ('tips.changed', true, 'Everyone: the mindfulness tips have a new version.'),
    ('config.changed', true, 'Everyone: what GET /config serves changed.'),
    ('session.started', false, 'The person''s other devices: a focus session started.'),
    ('session.finished', false, 'The person''s other devices: a session finished or was recorded offline.'),
    ('session.abandoned', false, 'The person''s other devices: a session was abandoned.'),
    ('selection.changed', false, 'The person''s other devices: the selected pet, sound or furniture changed.'),
    ('item.acquired', false, 'The person''s other devices: an item was bought.'),
    ('profile.changed', false, 'The person''s other devices: name, bio, email or avatar changed.'),
    ('settings.changed', false, 'The person''s other devices: time zone, locale or another setting changed.'),
    ('block.added', false, 'The person''s other devices: they blocked someone.'),
    ('block.removed', false, 'The person''s other devices: they unblocked someone.'),
    ('report.created', false, 'Every moderator: a report was filed (the console''s live queue).'),
    ('room.invited', false, 'The person invited to a focus room.'),
    ('room.joined', false, 'The other joined members of a room: someone joined.'),
    ('room.left', false, 'The other joined members of a room: someone left.'),
    ('room.started', false, 'Every joined member but the host: the room started (with their session).'),
    ('room.finished', false, 'The other joined members of a room: a member finished.'),
    ('room.gave_up', false, 'The other joined members of a room: a member gave up or vanished.'),
    ('room.ended', false, 'Every joined member: the room ended (its status, their bonus).'),
    ('achievement.unlocked', false, 'The person''s friends: an achievement was unlocked.'),
    ('streak.frozen', false, 'The person: a streak freeze covered a day.'),
    ('gift.received', false, 'The receiver of a gift.'),
    ('gift.accepted', false, 'The sender of a gift: it was accepted.'),
    ('gift.declined', false, 'The sender of a gift: it was declined, refunded or expired.');

create table app.ledger_entries (
    entry        text primary key check (entry ~ '^[a-z_]+$'),
    description  text not null check (length(description) between 1 and 300),
    retired_on   date
);
comment on table app.ledger_entries is
    'The kinds of app.coin_ledger entries (coin_ledger_entry_check and the archive totals'' check are written from '
    'these rows): what moves coins and in which direction. One row a kind, never deleted.';
comment on column app.ledger_entries.retired_on is
    'The day nothing wrote it any more (null: in use); kept so the rows written before stay valid.';

insert into app.ledger_entries (entry, description) values
    ('earn', 'Coins for a focus session''s minutes (positive; names the session).'),
    ('spend', 'A purchase in the shop (negative; names the item, and the sale if any).'),
    ('grant', 'Coins given by support or a DBA (app.grant_coins; positive).'),
    ('bonus', 'A focus room''s completion bonus (positive; names the room).'),
    ('reward', 'An achievement''s reward (positive; names the achievement).'),
    ('freeze', 'A streak freeze bought (negative; names the freeze).'),
    ('gift', 'A gift''s coins: the sender''s hold (negative), then the receiver''s credit or the sender''s refund.');

create table app.mail_kinds (
    kind         text primary key check (kind ~ '^[a-z_]+$'),
    description  text not null check (length(description) between 1 and 300),
    retired_on   date
);
comment on table app.mail_kinds is
    'The kinds of app.outgoing_mail (outgoing_mail_kind_check is written from these rows): which template in mail/ '
    'renders it (mail/<kind>.txt and .html). One row a kind, never deleted.';
comment on column app.mail_kinds.retired_on is
    'The day nothing wrote it any more (null: in use); kept so the rows written before stay valid.';

insert into app.mail_kinds (kind, description) values
    ('message', 'A subject and body as written, no fields (the column''s default): the account deletion code (app.send_deletion_codes).'),
    ('password_reset', 'A password reset code (app.send_password_resets).'),
    ('email_verification', 'A code confirming an email address (api.send_email_verification).'),
    ('address_taken', 'To an address another account asked for: nothing changed (api.mail_address_taken).'),
    ('signup_code', 'A sign-up code for an address shared by several accounts (api.send_signup_code).');

-- The guards follow the rows: a row added, changed or deleted writes the checks again. Deleting
-- a row, or changing its key or whether it is a broadcast, is refused (rows written before would
-- break the NOT VALID check unseen): retire it instead.
create trigger event_types_guard after insert or update or delete or truncate on app.event_types
    for each statement execute function app.registry_changed();
create trigger event_types_kept before delete or truncate on app.event_types
    for each statement execute function app.forbid_change();
create trigger event_types_key_kept before update of type, broadcast on app.event_types
    for each statement execute function app.forbid_change();
create trigger ledger_entries_guard after insert or update or delete or truncate on app.ledger_entries
    for each statement execute function app.registry_changed();
create trigger ledger_entries_kept before delete or truncate on app.ledger_entries
    for each statement execute function app.forbid_change();
create trigger ledger_entries_key_kept before update of entry on app.ledger_entries
    for each statement execute function app.forbid_change();
create trigger mail_kinds_guard after insert or update or delete or truncate on app.mail_kinds
    for each statement execute function app.registry_changed();
create trigger mail_kinds_kept before delete or truncate on app.mail_kinds
    for each statement execute function app.forbid_change();
create trigger mail_kinds_key_kept before update of kind on app.mail_kinds
    for each statement execute function app.forbid_change();

-- The checks name these rows already: nothing is written (a check that differed would be
-- written NOT VALID here; sql/tests/170_registries.sql proves they match).
select app.registry_guards_refresh();

-- A push type is an event type.
-- lint: allow not-valid (app.push_types holds three rows)
alter table app.push_types add constraint push_types_type_is_event foreign key (type) references app.event_types;

-- The jobs: app.scheduled_jobs is their registry.
alter table app.scheduled_jobs drop constraint scheduled_jobs_name_check;
alter table app.scheduled_jobs add column description text not null default '';
update app.scheduled_jobs set description = case name
    when 'settle_rooms' then 'Settles focus rooms: members who vanished, rooms nobody started (api.rooms_settle).'
    when 'prune' then 'Deletes or drops what is past its retention: Idempotency-Keys, sign-in records, mail, requests, events.'
    when 'expire_gifts' then 'Refunds the pending gifts past their expiry, 1000 a step (api.gifts_expire).'
    when 'shop_windows' then 'A new catalog version once a seasonal window or a sale started or ended (api.shop_windows_pass).'
    when 'partitions' then 'Makes the time partitions ahead (app.partitions_ensure_all).'
    end;
alter table app.scheduled_jobs alter column description drop default;
-- lint: allow not-valid (app.scheduled_jobs holds one row a job, five rows)
alter table app.scheduled_jobs add constraint scheduled_jobs_description_check check (length(description) between 1 and 300);
comment on column app.scheduled_jobs.description is
    E'personal: no (what a job does); on erasure: kept (configuration)\n'
    'What the job does: a job is one row here and its branch in api.job_step.';

-- The registries' text, for docs/privacy.md's catalogue: configuration, about no one.
comment on column app.event_types.type is 'personal: no; on erasure: kept (configuration)';
comment on column app.event_types.description is 'personal: no (what an event type means); on erasure: kept (configuration)';
comment on column app.ledger_entries.entry is 'personal: no; on erasure: kept (configuration)';
comment on column app.ledger_entries.description is 'personal: no (what a kind of ledger entry means); on erasure: kept (configuration)';
comment on column app.mail_kinds.kind is 'personal: no; on erasure: kept (configuration)';
comment on column app.mail_kinds.description is 'personal: no (what a kind of mail is); on erasure: kept (configuration)';
