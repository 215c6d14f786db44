-- 0024 the mail sender and events to one's own other devices (2026-12-01).
--
-- Mail: `focus-island mail` (Sources/FocusIsland/Mail/) sends app.outgoing_mail over SMTP. A
-- row now says which template renders it (kind, with the values the template fills in, params)
-- and where it stands: queued (waiting, maybe for a retry at next_attempt_at), sending (claimed
-- by a sender at claimed_at), sent, or failed (a 5xx answer, a bounce, or the last of
-- mail_settings.max_attempts tries); attempts counts the tries and last_error keeps the last
-- answer. A row that is sent or failed holds no code any more: body and params are blanked.
-- The functions (sql/app/030_mail.sql): app.claim_outgoing_mail, app.outgoing_mail_sent,
-- app.outgoing_mail_failed; app.take_outgoing_mail stays for an operator's own mailer.
-- Rows written before: kind 'message' (the subject and body as written), state from sent_at.
--
-- Events to one's own other devices: what a person does on one device (a session started,
-- finished or abandoned, a selection, an item bought, the profile or settings changed, a
-- block added or removed) is told to their other signed-in devices, not to the one that did
-- it: each such event carries origin_token, the id of the auth token whose request wrote it
-- (api.authenticate sets it for the transaction, app.acting_token reads it), and
-- api.events_list leaves out the caller's own token's events. Written only when the person
-- has another live token, so a one-device account writes nothing (and takes no lock).

alter table app.outgoing_mail
    add column kind text not null default 'message'
        constraint outgoing_mail_kind_check check (kind in ('message', 'password_reset', 'email_verification', 'address_taken')),
    add column params jsonb not null default '{}'
        constraint outgoing_mail_params_check check (jsonb_typeof(params) = 'object' and length(params::text) <= 1000),
    add column state text not null default 'queued'
        constraint outgoing_mail_state_check check (state in ('queued', 'sending', 'sent', 'failed')),
    add column attempts integer not null default 0 constraint outgoing_mail_attempts_check check (attempts >= 0),
    add column next_attempt_at timestamptz not null default now(),
    add column claimed_at timestamptz,
    add column failed_at timestamptz,
    add column last_error text constraint outgoing_mail_last_error_check check (length(last_error) <= 1000);
comment on column app.outgoing_mail.kind is
    'The template that renders it (mail/<kind>.txt and mail/<kind>.html); ''message'': its subject and body as written.';
comment on column app.outgoing_mail.params is
    'The values the template fills in (a code, its minutes); blanked once sent or failed.';
comment on column app.outgoing_mail.state is
    'queued (waiting until next_attempt_at), sending (claimed at claimed_at), sent (at sent_at) or failed (at failed_at, not retried).';
comment on column app.outgoing_mail.last_error is
    'The last failed try''s answer (SMTP code and text, or the transport''s error); may name the recipient, erased with the row.';

update app.outgoing_mail m set state = 'sent', params = '{}' where m.sent_at is not null;
alter table app.outgoing_mail
    add constraint outgoing_mail_sent_check check ((state = 'sent') = (sent_at is not null)),
    add constraint outgoing_mail_failed_check check ((state = 'failed') = (failed_at is not null)),
    add constraint outgoing_mail_claimed_check check (state <> 'sending' or claimed_at is not null);

-- What a sender takes: due queued rows and claims gone stale, oldest first.
drop index app.outgoing_mail_unsent;
create index outgoing_mail_due on app.outgoing_mail (id) where state in ('queued', 'sending');

-- How the sender retries (a DBA may change them): a 4xx answer or a lost connection is tried
-- again after retry_delay, doubled each time up to max_retry_delay, at most max_attempts tries
-- in all; a claim older than claim_timeout (a sender that died mid-batch) is taken again.
create table app.mail_settings (
    singleton        boolean primary key default true check (singleton),
    max_attempts     integer not null default 8 check (max_attempts between 1 and 20),
    retry_delay      interval not null default interval '1 minute' check (retry_delay >= interval '1 second'),
    max_retry_delay  interval not null default interval '1 hour' check (max_retry_delay >= retry_delay),
    claim_timeout    interval not null default interval '10 minutes' check (claim_timeout >= interval '1 minute')
);
comment on table app.mail_settings is
    'How focus-island mail retries: 4xx and transport errors after retry_delay doubling up to max_retry_delay, '
    'max_attempts tries in all; a claim older than claim_timeout is taken again.';
insert into app.mail_settings default values;

-- Events.
alter table app.events add column origin_token uuid;
comment on column app.events.origin_token is
    'The auth token whose request wrote it (own-device events only): that token''s own streams and '
    'long-polls do not get it. Pruned with the event.';

alter table app.events drop constraint events_type_check;
alter table app.events add constraint events_type_check check (type in (
    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
    'friend.removed', 'friend.updated', 'balance.changed',
    'catalog.changed', 'tips.changed', 'config.changed',
    'session.started', 'session.finished', 'session.abandoned', 'selection.changed', 'item.acquired',
    'profile.changed', 'settings.changed', 'block.added', 'block.removed'));

-- The bindings (the functions: sql/app/025_own_events.sql).
create trigger focus_sessions_own_events
after insert or update of ended_at on app.focus_sessions
for each row execute function app.focus_sessions_own_events();

create trigger user_selections_own_events
after insert or update of item_id on app.user_selections
for each row execute function app.user_selections_own_events();

create trigger user_items_own_events
after insert on app.user_items
for each row execute function app.user_items_own_events();

create trigger users_own_events
after update on app.users
for each row
when (new.deleted_at is null
      and (new.display_name is distinct from old.display_name or new.bio is distinct from old.bio
           or new.email is distinct from old.email
           or new.time_zone is distinct from old.time_zone or new.show_tip_on_timer is distinct from old.show_tip_on_timer
           or new.locale is distinct from old.locale))
execute function app.users_own_events();

create trigger avatars_own_events
after insert or update or delete on app.avatars
for each row execute function app.avatars_own_events();

create trigger blocks_own_events
after insert or delete on app.blocks
for each row execute function app.blocks_own_events();
