-- 0070 every column that can hold text, JSON, bytes or an address says what it holds about a
-- person and what erasure does to it, in the first line of its comment (2026-12-06; the form:
-- docs/contributing.md, "Describing a column's personal data"). docs/privacy.md's "Catalogue of
-- stored text" was a table written by hand; it is now generated from these lines
-- (scripts/lib/privacy-catalogue.py), so a new column is described once, in the migration that
-- makes it. Each line here is that table's row as it stood; a comment the column had follows it.
-- A comment takes SHARE UPDATE EXCLUSIVE on its table (no read or write waits for it), held to
-- the commit: the timeout lets the file give up, and be tried again, rather than queue behind a
-- partition's ATTACH or DETACH.
set local lock_timeout = '2s';

comment on column app.account_deletion_codes.digest is
    'personal: yes; on erasure: deleted';
comment on column app.account_deletion_requests.email is
    'personal: yes; on erasure: deleted (any address the account held or asked for); 15 minutes (`reset_code_ttl`) if never mailed';
comment on column app.account_deletions.deleted_by is
    'personal: no (the database login: the server''s role, or the DBA''s for support); on erasure: kept for the audit, tied to the tombstone';
comment on column app.account_deletions.reason is
    'personal: no (support''s words about the request; they must not name the person); on erasure: kept for the audit, tied to the tombstone';
comment on column app.account_deletions.via is
    'personal: no; on erasure: kept for the audit, tied to the tombstone';
comment on column app.achievements.code is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.achievements.description is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.achievements.kind is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.achievements.name is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.asset_settings.base_url is
    'personal: no; on erasure: kept (configuration)';
comment on column app.assets.hashed_name is
    'personal: no; on erasure: kept (configuration)';
comment on column app.assets.key is
    'personal: no; on erasure: kept (configuration)';
comment on column app.auth_tokens.digest is
    'personal: yes; on erasure: deleted';
comment on column app.auth_tokens.user_agent is
    'personal: yes (device); on erasure: deleted';
comment on column app.avatars.content_type is
    'personal: yes; on erasure: deleted';
comment on column app.avatars.data is
    'personal: yes (a picture); on erasure: deleted';
comment on column app.blocked_name_terms.note is
    'personal: no (an operator''s note); on erasure: kept (moderation settings)';
comment on column app.blocked_name_terms.term is
    'personal: no (an operator''s term); on erasure: kept (moderation settings)';
comment on column app.blocks.blocker_display_name is
    E'personal: yes (the blocker''s name when they blocked, shown to the blocked user since); on erasure: deleted (the account''s blocks, either way)\n'
    'The blocker''s display name when they blocked: what the blocked user is shown of them from then on '
    '(blocks from before 0036: the name then).';
comment on column app.client_platforms.latest_version is
    'personal: no; on erasure: kept (configuration)';
comment on column app.client_platforms.min_version is
    'personal: no; on erasure: kept (configuration)';
comment on column app.client_platforms.platform is
    'personal: no; on erasure: kept (configuration)';
comment on column app.client_platforms.store_url is
    'personal: no; on erasure: kept (configuration)';
comment on column app.coin_ledger.achievement_code is
    'personal: no (a catalogue code); on erasure: kept, tied to the tombstone';
comment on column app.coin_ledger.entry is
    'personal: no; on erasure: kept, tied to the tombstone';
comment on column app.coin_ledger.reason is
    'personal: no (an operator''s text); on erasure: kept, tied to the tombstone';
comment on column app.coin_ledger_archive_totals.entry is
    'personal: no (a kind of entry; sums per person of archived entries); on erasure: kept, tied to the tombstone';
comment on column app.display_name_history.display_name is
    'personal: yes; on erasure: deleted (a trigger on deletion)';
comment on column app.email_verifications.digest is
    'personal: yes (a code''s SHA-256); on erasure: deleted';
comment on column app.email_verifications.email is
    'personal: yes (a pending or confirmed address); on erasure: deleted';
comment on column app.events.payload is
    'personal: no (ids and numbers); on erasure: kept until the 7-day event retention';
comment on column app.events.type is
    'personal: no; on erasure: kept until the 7-day event retention';
comment on column app.focus_sessions.rating is
    'personal: no (tied to an id only); on erasure: kept, tied to the tombstone';
comment on column app.focus_sessions.source is
    'personal: no; on erasure: kept, tied to the tombstone';
comment on column app.focus_sessions.tag is
    E'personal: yes (a label the person wrote); on erasure: blanked (null)\n'
    'The person''s label for the session (start or offline upload), lower case, 1 to 32 characters; null '
    'when unset; blanked by DELETE /me.';
comment on column app.focus_sessions_archived.rating is
    'personal: no (tied to an id only; sessions moved past the horizon, 0055); on erasure: kept, tied to the tombstone';
comment on column app.focus_sessions_archived.source is
    'personal: no; on erasure: kept, tied to the tombstone';
comment on column app.focus_sessions_archived.tag is
    'personal: yes (a label the person wrote); on erasure: blanked (null)';
comment on column app.friendship_event_day_totals.action is
    'personal: no (counts per day, no ids); on erasure: kept';
comment on column app.friendship_events.action is
    'personal: no (ids only); on erasure: kept';
comment on column app.friendships.status is
    'personal: no; on erasure: the pair''s rows deleted';
comment on column app.gifts.status is
    'personal: no (ids, coins and an item only: a gift holds no message); on erasure: pending gifts to or from the account cancelled and refunded with its friendships; the rows kept, tied to the tombstone (the other person''s history and the ledger''s `gift_id`)';
comment on column app.idempotency_keys.key is
    'personal: no (a client''s random key); on erasure: the account''s rows deleted';
comment on column app.idempotency_keys.reply is
    'personal: yes (answers name people); on erasure: the account''s rows and others'' naming it deleted';
comment on column app.idempotency_keys.request_digest is
    'personal: pseudonymous (SHA-256 of a request); on erasure: the account''s rows deleted';
comment on column app.idempotency_keys.route is
    'personal: no; on erasure: the account''s rows deleted';
comment on column app.idempotency_keys.scope is
    'personal: yes (`email:<address>`); on erasure: the account''s rows deleted';
comment on column app.idempotency_keys.sealed_reply is
    E'personal: yes (encrypted); on erasure: the account''s rows deleted\n'
    'pgp_sym_encrypt(reply, HMAC-SHA-256(the whole request, the server''s seal key)) for requests with '
    'secrets; the seal key never reaches the database''s tables.';
comment on column app.idempotency_keys.token_digest is
    'personal: yes; on erasure: the account''s rows deleted';
comment on column app.languages.name is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.languages.tag is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.login_addresses.client_ip is
    'personal: yes; on erasure: deleted; 90 days after last success';
comment on column app.login_failures.client_ip is
    'personal: yes; on erasure: deleted; 30 days';
comment on column app.login_failures.email is
    'personal: yes; on erasure: deleted (any address the account held or asked for); 30 days';
comment on column app.login_failures.kind is
    'personal: no; on erasure: deleted with the row; 30 days';
comment on column app.mindfulness_tip_translations.content is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.mindfulness_tip_translations.language is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.mindfulness_tip_translations.title is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.mindfulness_tips.content is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.mindfulness_tips.rating_level is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.mindfulness_tips.title is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.moderation_actions.action is
    'personal: no; on erasure: kept, tied to the tombstone';
comment on column app.moderation_actions.details is
    'personal: yes (a rename holds the name given); on erasure: emptied (a trigger on deletion)';
comment on column app.moderation_actions.reason is
    'personal: no (a moderator''s words about an action); on erasure: kept for the audit, tied to the tombstone';
comment on column app.moderators.granted_by is
    'personal: no (the DBA role that granted it); on erasure: kept';
comment on column app.moderators.note is
    'personal: no (an operator''s note); on erasure: kept';
comment on column app.outgoing_mail.body is
    'personal: yes (codes in clear until sent); on erasure: deleted; 30 days';
comment on column app.outgoing_mail.kind is
    E'personal: no (which template); on erasure: deleted with the row; 30 days\n'
    'The template that renders it (mail/<kind>.txt and mail/<kind>.html); ''message'': its subject and body '
    'as written.';
comment on column app.outgoing_mail.last_error is
    E'personal: yes (an SMTP answer may quote the address); on erasure: deleted with the row; 30 days\n'
    'The last failed try''s answer (SMTP code and text, or the transport''s error); may name the recipient, '
    'erased with the row.';
comment on column app.outgoing_mail.params is
    E'personal: yes (a code until sent or failed, then `{}`); on erasure: deleted with the row; 30 days\n'
    'The values the template fills in (a code, its minutes); blanked once sent or failed.';
comment on column app.outgoing_mail.recipient is
    'personal: yes; on erasure: deleted (any address the account held or asked for); 30 days';
comment on column app.outgoing_mail.state is
    E'personal: no; on erasure: deleted with the row; 30 days\n'
    'queued (waiting until next_attempt_at), sending (claimed at claimed_at), sent (at sent_at) or failed '
    '(at failed_at, not retried).';
comment on column app.outgoing_mail.subject is
    'personal: yes; on erasure: deleted; 30 days';
comment on column app.partitioned_tables.keep_while is
    E'personal: no (a row condition in SQL); on erasure: kept (configuration)\n'
    'A condition on a row (SQL, the table''s columns): a partition holding a row that meets it is not '
    'dropped, whatever its age. Null: every row goes with its partition once past the retention.';
comment on column app.partitioned_tables.parent is
    'personal: no (a table''s name); on erasure: kept (configuration)';
comment on column app.password_reset_requests.email is
    'personal: yes; on erasure: deleted (any address the account held or asked for); 15 minutes (`reset_code_ttl`) if never mailed';
comment on column app.password_resets.digest is
    'personal: yes; on erasure: deleted';
comment on column app.push_outbox.data is
    'personal: no (the event''s ids); on erasure: deleted with the account''s push tokens';
comment on column app.push_outbox.last_error is
    'personal: no (a push service''s answer); on erasure: deleted with the account''s push tokens';
comment on column app.push_outbox.token is
    'personal: yes (a device''s push token); on erasure: deleted with the account''s push tokens';
comment on column app.push_outbox.type is
    'personal: no; on erasure: deleted with the account''s push tokens';
comment on column app.push_settings.muted is
    'personal: no (push types); on erasure: deleted';
comment on column app.push_tokens.app_version is
    'personal: yes (device); on erasure: deleted';
comment on column app.push_tokens.environment is
    'personal: no; on erasure: deleted';
comment on column app.push_tokens.locale is
    'personal: yes (a language preference); on erasure: deleted';
comment on column app.push_tokens.platform is
    'personal: yes (device); on erasure: deleted';
comment on column app.push_tokens.token is
    'personal: yes (a device identifier APNs or FCM reaches); on erasure: deleted; also with the sign-in that registered it (logout, revocation, password change) and when the push service calls it dead';
comment on column app.push_types.loc_key is
    'personal: no; on erasure: kept (configuration)';
comment on column app.push_types.type is
    'personal: no; on erasure: kept (configuration)';
comment on column app.release_settings.feature_flags is
    'personal: no; on erasure: kept (configuration)';
comment on column app.release_settings.maintenance_message is
    'personal: no (an operator''s text); on erasure: kept (configuration)';
comment on column app.room_members.outcome is
    'personal: no; on erasure: kept, tied to the tombstone (the other members'' history of the room)';
comment on column app.room_members.state is
    'personal: no; on erasure: kept, tied to the tombstone (the other members'' history of the room)';
comment on column app.rooms.code is
    'personal: no (a random join code); on erasure: kept, tied to the tombstone';
comment on column app.rooms.status is
    'personal: no; on erasure: kept, tied to the tombstone';
comment on column app.scheduled_jobs.last_error is
    'personal: no (a job''s error message); on erasure: kept (operations)';
comment on column app.scheduled_jobs.name is
    'personal: no; on erasure: kept (configuration)';
comment on column app.schema_migrations.checksum is
    'personal: no; on erasure: kept';
comment on column app.schema_migrations.name is
    'personal: no; on erasure: kept';
comment on column app.session_day_totals.source is
    'personal: no (aggregates); on erasure: kept';
comment on column app.session_import.rating is
    'personal: no (tied to an id only); on erasure: a DBA''s staging rows, deleted as each batch moves into `app.focus_sessions` (then as that table''s)';
comment on column app.session_import.source is
    'personal: no; on erasure: a DBA''s staging rows, deleted as each batch moves into `app.focus_sessions`';
comment on column app.session_import.tag is
    'personal: yes (a label the person wrote); on erasure: a DBA''s staging rows, deleted as each batch moves; a deleted account''s rows are not erased while staged, so a DBA empties the table after an import (docs/operations.md, "Bulk work beside live traffic")';
comment on column app.shop_item_translations.description is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.shop_item_translations.language is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.shop_item_translations.name is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.shop_items.description is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.shop_items.image is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.shop_items.kind is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.shop_items.name is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.shop_items.sound is
    'personal: no; on erasure: kept (catalogue)';
comment on column app.signup_codes.client_ip is
    'personal: yes (an address bucket); on erasure: deleted with the row; an hour (the longest of `taken_answer_window`, `reset_mail_window`, `reset_code_ttl`)';
comment on column app.signup_codes.digest is
    'personal: yes (a code''s SHA-256); on erasure: deleted with the row';
comment on column app.signup_codes.email is
    'personal: yes (the address a sign-up code or notice was mailed to); on erasure: deleted (the account''s email and any address it asked for); an hour (as `client_ip`)';
comment on column app.taken_email_answers.client_ip is
    'personal: yes (an address bucket); on erasure: deleted for every address the account signed in or failed from; 1 hour (`taken_answer_window`)';
comment on column app.user_achievements.achievement_code is
    'personal: no (a catalogue code); on erasure: kept, tied to the tombstone (as items)';
comment on column app.user_achievements.unlocked_by is
    E'personal: no (the kind and id of the person''s own write: a session, an item, a friendship, a gift); on erasure: kept, tied to the tombstone (as items)\n'
    'The caller''s write whose answer listed this unlock (session:<id>, item:<id>, friendship:<id>, '
    'gift:<id>), so a repeat of it answers the same achievements_unlocked; null when no answer of the '
    'person''s listed it.';
comment on column app.user_reports.details is
    'personal: yes (free text by a reporter); on erasure: reports about the account deleted; reports it made kept for moderators, tied to the tombstone';
comment on column app.user_reports.reason is
    'personal: no; on erasure: as `details`';
comment on column app.user_reports.resolution is
    'personal: no (a moderator''s words); on erasure: as `details`';
comment on column app.user_reports.status is
    'personal: no; on erasure: as `details`';
comment on column app.user_selections.kind is
    'personal: no; on erasure: kept, tied to the tombstone';
comment on column app.users.bio is
    E'personal: yes (free text about the person); on erasure: set to null\n'
    'What the person writes about themselves (PATCH /me), shown to friends; null when unset; blanked by '
    'DELETE /me.';
comment on column app.users.display_name is
    'personal: yes; on erasure: set to `Deleted user`';
comment on column app.users.email is
    'personal: yes; on erasure: set to null (`email_verified_at` too)';
comment on column app.users.locale is
    E'personal: yes (a language, a location hint); on erasure: set to `en`\n'
    'The person''s language (BCP 47, PATCH /me settings.locale) for push and mail: '
    'app.language_for(locale).';
comment on column app.users.password_hash is
    'personal: yes; on erasure: set to null';
comment on column app.users.time_zone is
    'personal: yes (a location hint); on erasure: set to `UTC`';
comment on column app.web_sessions.csrf_token is
    'personal: no (random); on erasure: deleted with the account''s tokens';
comment on column app.web_sessions.digest is
    'personal: yes; on erasure: deleted with the account''s tokens';
