-- 0022 pages, daily stats and session tags (2026-12-01).
--
-- Lists answer in pages, read by keyset over one stable order with a unique tie-breaker
-- (docs/api-guide.md, "Pagination"); each order has an index that serves it, so a page costs
-- `limit` index entries however deep it is:
-- - GET /friends: accepted_at, id (the friendship's id) over both sides of the pair; a partial
--   index per side, as a person is user_low in some rows and user_high in others.
-- - GET /me/blocks: created_at desc, blocked desc; the primary key (blocker, blocked) cannot order by time.
-- - GET /focus-sessions: started_at desc, id desc.
-- - GET /moderation/reports?user_id=: status, created_at, id about one user (without user_id,
--   user_reports_status from 0017 serves it already).
--
-- A session may carry a tag: a short label the person chooses ("math", "reading"), in one
-- normal form (app.session_tag_is_clean, sql/app/095_session_tags.sql), null when unset.
-- Existing sessions have none: no backfill. GET /me/stats/tags sums minutes by tag from the
-- person's own sessions (user_id, tag), and GET /me/stats/daily reads focus_sessions_user_end.

create index friendships_low_accepted on app.friendships (user_low, accepted_at, id) where status = 'accepted';
create index friendships_high_accepted on app.friendships (user_high, accepted_at, id) where status = 'accepted';
create index blocks_blocker_time on app.blocks (blocker, created_at desc, blocked desc);
create index focus_sessions_user_start on app.focus_sessions (user_id, started_at desc, id desc);
create index user_reports_reported_status on app.user_reports (reported, status, created_at, id);

alter table app.focus_sessions add column tag text
    constraint focus_sessions_tag_check check (app.session_tag_is_clean(tag));
comment on column app.focus_sessions.tag is
    'The person''s label for the session (start or offline upload), lower case, 1 to 32 characters; null when unset; '
    'blanked by DELETE /me.';
create index focus_sessions_user_tag on app.focus_sessions (user_id, tag) where tag is not null;
