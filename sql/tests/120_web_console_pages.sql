-- The console's pages and actions: the queue newest first by status and reason, a user's page
-- (name history, avatar, reports by and against, actions), the audit log, and every action
-- through its own function behind the session's CSRF token, audited, nothing written when refused.
begin;
select plan(28);
select test.new_user(name) from unnest(array['mod', 'ann', 'bo', 'cy']) as name;
insert into app.moderators (user_id) values (test.uid('mod'));
create temporary table session as
select (api.moderation_session_create(null, '{}', '{"email": "mod@example.com", "password": "correct horse"}')).body ->> 'token' as token;
create function pg_temp.t() returns text language sql as $$ select token from session $$;
create function pg_temp.csrf() returns text language sql as $$
    select csrf_token from app.web_sessions where digest = sha256(convert_to(pg_temp.t(), 'UTF8'))
$$;
create function pg_temp.page(fn text, params jsonb default '{}') returns jsonb language plpgsql as $$
declare v api.reply;
begin
    execute format('select (api.%I(%L, %L, %L)).*', fn, pg_temp.t(), params, '{}') into v;
    return v.body;
end $$;
create function pg_temp.act(body jsonb) returns text language sql as $$
    select test.answer_of(format('select api.moderation_action_create(%L, %L, %L)', pg_temp.t(), '{}',
                                 jsonb_build_object('csrf_token', pg_temp.csrf()) || body))
$$;

select api.users_report_create(test.token('ann'), jsonb_build_object('id', test.uid('cy')), '{"reason": "spam"}');
update app.user_reports set created_at = now() - interval '1 minute';
select api.users_report_create(test.token('bo'), jsonb_build_object('id', test.uid('cy')), '{"reason": "harassment", "details": "<b>rude</b>"}');
select api.me_update(test.token('cy'), '{}', '{"display_name": "Cyrus"}');

-- the queue
select is((select jsonb_agg(r -> 'reporter' ->> 'display_name') from jsonb_array_elements(pg_temp.page('moderation_queue_list') -> 'reports') r),
          '["Bo", "Ann"]', 'the queue is open reports, newest first');
select is((select jsonb_agg(r ->> 'reason') from jsonb_array_elements(pg_temp.page('moderation_queue_list', '{"reason": "spam"}') -> 'reports') r),
          '["spam"]', 'filtered by reason');
select is(jsonb_array_length(pg_temp.page('moderation_queue_list', '{"status": "dismissed"}') -> 'reports'), 0, 'filtered by status');
select is(pg_temp.page('moderation_queue_list') -> 'csrf_token', to_jsonb(pg_temp.csrf()), 'the page carries the session''s CSRF token for its forms');
select is(pg_temp.page('moderation_queue_list') ->> 'events', '/events',
          'the page names the event stream its script listens on, as api.events_list''s endpoint declares it');
select is((select r ->> 'value' from jsonb_array_elements(pg_temp.page('moderation_queue_list', '{"status": "all"}') -> 'statuses') r
           where (r ->> 'selected')::boolean), 'all', 'the filter shows what was chosen');
select is(test.error_of(format('select api.moderation_queue_list(%L, %L, %L)', pg_temp.t(), '{"status": "closed"}', '{}')), 'PT400 invalid_field',
          'an unknown status is 400');
select is(test.error_of(format('select api.moderation_queue_list(%L, %L, %L)', pg_temp.t(), '{"reason": "rude"}', '{}')), 'PT400 invalid_field',
          'an unknown reason is 400');
select is(test.error_of(format('select api.moderation_queue_list(%L, %L, %L)', test.token('ann'), '{}', '{}')), 'PT403 not_moderator',
          'a member''s token is 403 not_moderator');

-- the user's page
select is((select jsonb_agg(n ->> 'display_name') from jsonb_array_elements(pg_temp.page('moderation_user_get', jsonb_build_object('id', test.uid('cy'))) -> 'display_names') n),
          '["Cyrus", "Cy"]', 'a user''s page lists the names they had, newest first');
select is(jsonb_array_length(pg_temp.page('moderation_user_get', jsonb_build_object('id', test.uid('cy'))) -> 'reports_against'), 2, '... the reports against them');
select is(jsonb_array_length(pg_temp.page('moderation_user_get', jsonb_build_object('id', test.uid('ann'))) -> 'reports_by'), 1, '... the reports they made');
select is(pg_temp.page('moderation_user_get', jsonb_build_object('id', test.uid('cy'))) -> 'avatar', 'null', '... no avatar');
insert into app.avatars (user_id, content_type, data) values (test.uid('cy'), 'image/png', '\x89504e470d0a1a0a00'::bytea);
select is(pg_temp.page('moderation_user_get', jsonb_build_object('id', test.uid('cy'))) -> 'avatar' ->> 'data_url',
          'data:image/png;base64,iVBORw0KGgoA', '... an avatar as a data: URL');
select is(test.error_of(format('select api.moderation_user_get(%L, %L, %L)', pg_temp.t(), jsonb_build_object('id', gen_random_uuid()), '{}')),
          'PT404 user_not_found', 'an unknown user is 404');
select is(test.error_of(format('select api.moderation_user_get(%L, %L, %L)', pg_temp.t(), '{"id": "nope"}', '{}')),
          'PT400 invalid_field', 'a malformed id is 400');

-- actions
select is(test.error_of(format('select api.moderation_action_create(%L, %L, %L)', pg_temp.t(), '{}',
                               jsonb_build_object('action', 'ban', 'user_id', test.uid('cy'), 'reason', 'x'))),
          'PT403 csrf_failed', 'an action without the CSRF token is 403 csrf_failed');
select is(test.error_of(format('select api.moderation_action_create(%L, %L, %L)', pg_temp.t(), '{}',
                               jsonb_build_object('csrf_token', 'forged', 'action', 'ban', 'user_id', test.uid('cy'), 'reason', 'x'))),
          'PT403 csrf_failed', '... or with another one');
select is(pg_temp.act(jsonb_build_object('action', 'suspend', 'user_id', test.uid('cy'), 'until', '2099-01-01 10:00')), 'PT400 invalid_field',
          'an action without a reason is 400');
select is(pg_temp.act(jsonb_build_object('action', 'shout', 'user_id', test.uid('cy'), 'reason', 'x')), 'PT400 invalid_field', 'an unknown action is 400');
select is(pg_temp.act(jsonb_build_object('action', 'suspend', 'user_id', test.uid('cy'), 'reason', 'x', 'until', 'soon')), 'PT400 invalid_field',
          'a malformed end is 400');
select is((select count(*)::integer from app.moderation_actions), 0, '... and nothing refused was audited');
select is(pg_temp.act(jsonb_build_object('action', 'suspend', 'user_id', test.uid('cy'), 'reason', 'spamming', 'until', '2099-01-01 10:00')), 'ok',
          'a suspension with a form''s date and time (UTC)');
select is((select until from app.suspensions where user_id = test.uid('cy')), '2099-01-01 10:00Z'::timestamptz, '... ends then');
select is(pg_temp.act(jsonb_build_object('action', 'rename', 'user_id', test.uid('cy'), 'reason', 'rude name', 'display_name', 'Renamed')), 'ok', 'a rename');
select is(pg_temp.act(jsonb_build_object('action', 'dismiss', 'report_id', (select id from app.user_reports where reason = 'spam'), 'reason', 'not spam')),
          'ok', 'a report dismissed');
select is((select jsonb_agg(a ->> 'action' order by a ->> 'action') from jsonb_array_elements(pg_temp.page('moderation_audit_list') -> 'actions') a),
          '["rename", "resolve_report", "suspend"]', 'the audit log lists each action (newest first: one instant in this test)');
select is((select jsonb_agg(a ->> 'reason' order by a ->> 'reason') from jsonb_array_elements(pg_temp.page('moderation_user_get', jsonb_build_object('id', test.uid('cy'))) -> 'actions') a),
          '["not spam", "rude name", "spamming"]', 'the user''s page lists the past actions with their reasons');
select * from finish();
rollback;
