-- Moderators read reports by status, oldest first, page by cursor, and resolve them as actioned
-- or dismissed with a reason, each resolution audited; nobody else may (403 not_moderator).
begin;
select plan(29);
select test.new_user(name) from unnest(array['mod', 'rex', 'ray', 'tom', 'zed']) as name;
insert into app.moderators (user_id, note) values (test.uid('mod'), 'pgTAP');
select api.users_report_create(test.token(a), jsonb_build_object('id', test.uid(b)), jsonb_build_object('reason', r))
from (values ('rex', 'tom', 'spam'), ('ray', 'tom', 'harassment'), ('rex', 'ray', 'other')) v(a, b, r);
create function pg_temp.list(params jsonb, name text default 'mod') returns jsonb language sql as $$
    select (api.moderation_reports_list(test.token(name), params, '{}')).body
$$;
create function pg_temp.ids(page jsonb) returns uuid[] language sql as $$
    select coalesce(array_agg((r ->> 'id')::uuid order by o), '{}') from jsonb_array_elements(page -> 'reports') with ordinality as x(r, o)
$$;
create function pg_temp.resolve(id uuid, body jsonb, name text default 'mod') returns text language sql as $$
    select test.error_of(format($f$ select api.moderation_reports_resolve(test.token(%L), %L, %L) $f$,
                                name, jsonb_build_object('id', id), body))
$$;
create function pg_temp.report_of(a text, b text) returns uuid language sql as $$
    select id from app.user_reports where reporter = test.uid(a) and reported = test.uid(b) order by created_at desc limit 1
$$;

-- who may
select is(test.error_of($$ select api.moderation_reports_list(test.token('zed'), '{}', '{}') $$), 'PT403 not_moderator',
          'an account that is not a moderator gets 403 not_moderator');
select is(test.error_of($$ select api.moderation_reports_list(null, '{}', '{}') $$), 'PT401 unauthorized', 'no token: 401');

-- listing and paging (the three reports share created_at here, so their order is by id)
select is(pg_temp.ids(pg_temp.list('{}')), (select array_agg(id order by created_at, id) from app.user_reports),
          'the open reports, oldest first (created_at, then id)');
select is(pg_temp.list('{}') -> 'next_cursor', 'null'::jsonb, 'a page not full has no next_cursor');
select is(jsonb_array_length(pg_temp.list('{"limit": "2"}') -> 'reports'), 2, 'limit=2 gives two');
select is(pg_temp.ids(pg_temp.list(jsonb_build_object('cursor', pg_temp.list('{"limit": "2"}') ->> 'next_cursor'))),
          (select array_agg(id order by created_at, id) from (select * from app.user_reports order by created_at, id offset 2) r),
          'cursor=next_cursor gives the rest, and nothing twice');
select is(pg_temp.list('{"limit": "3"}') -> 'next_cursor', 'null'::jsonb, 'a page that ends the list exactly has no next_cursor');
select is(pg_temp.ids(pg_temp.list(jsonb_build_object('after', (pg_temp.ids(pg_temp.list('{"limit": "2"}')))[2]))),
          (select array_agg(id order by created_at, id) from (select * from app.user_reports order by created_at, id offset 2) r),
          'after=<id of the last report> still gives the rest');
select is(pg_temp.ids(pg_temp.list(jsonb_build_object('after', pg_temp.list('{"limit": "2"}') ->> 'next_cursor'))),
          (select array_agg(id order by created_at, id) from (select * from app.user_reports order by created_at, id offset 2) r),
          'after=next_cursor, as clients sent it back when it was an id, gives the rest too');
select is(test.error_of($$ select api.moderation_reports_list(test.token('mod'), '{"after": "not-a-cursor"}', '{}') $$),
          'PT400 invalid_cursor', 'after that is neither an id nor a cursor is 400 invalid_cursor');
select is(test.error_of(format($$ select api.moderation_reports_list(test.token('mod'), %L, '{}') $$,
                               jsonb_build_object('after', (pg_temp.ids(pg_temp.list('{}')))[1],
                                                  'cursor', pg_temp.list('{"limit": "1"}') ->> 'next_cursor'))),
          'PT400 invalid_field', 'after with cursor is 400 invalid_field');
select is(test.error_of($$ select api.moderation_reports_list(test.token('mod'), '{"cursor": "00000000-0000-4000-8000-000000000000"}', '{}') $$),
          'PT400 invalid_cursor', 'a cursor this list did not give (an id) is 400 invalid_cursor');
select is(test.error_of(format($$ select api.moderation_reports_list(test.token('mod'), %L, '{}') $$,
                               jsonb_build_object('cursor', api.cursor_encode('sessions', jsonb_build_array(api.iso(now()), test.uid('tom')))))),
          'PT400 invalid_cursor', 'a cursor of another list is 400 invalid_cursor');
select is(pg_temp.ids(pg_temp.list(jsonb_build_object('user_id', test.uid('ray')))), array[pg_temp.report_of('rex', 'ray')],
          'user_id filters the reports about one user');
select is((pg_temp.list(jsonb_build_object('user_id', test.uid('tom'))) -> 'reports' -> 0) - 'id' - 'created_at' - 'reporter' - 'reason',
          jsonb_build_object('status', 'open', 'details', null,
                             'user', jsonb_build_object('id', test.uid('tom'), 'display_name', 'Tom', 'has_avatar', false,
                                                        'avatar_version', null, 'banned', false, 'suspended_until', null,
                                                        'guest', false, 'age_restricted', false),
                             'reports_about_user', 2, 'resolved_at', null, 'resolved_by', null, 'resolution', null),
          'a report shows the user reported, their suspension, whether a guest or under the age gate, and how often they were reported');
select is(test.error_of($$ select api.moderation_reports_list(test.token('mod'), '{"after": "00000000-0000-4000-8000-000000000000"}', '{}') $$),
          'PT400 invalid_field', 'an unknown report as after is 400 invalid_field');
select is(test.error_of($$ select api.moderation_reports_list(test.token('mod'), '{"status": "closed"}', '{}') $$),
          'PT400 invalid_field', 'an unknown status is 400 invalid_field');
select is(test.error_of($$ select api.moderation_reports_list(test.token('mod'), '{"limit": "0"}', '{}') $$),
          'PT400 invalid_field', 'limit 0 is 400 invalid_field');

-- resolving
select is(pg_temp.resolve(pg_temp.report_of('rex', 'tom'), '{"status": "actioned", "reason": "  renamed the user  "}', 'zed'),
          'PT403 not_moderator', 'zed may not resolve');
select is(pg_temp.resolve(pg_temp.report_of('rex', 'tom'), '{"status": "open", "reason": "x"}'), 'PT400 invalid_field',
          'resolving as open is 400 invalid_field');
select is(pg_temp.resolve(pg_temp.report_of('rex', 'tom'), '{"status": "dismissed", "reason": "   "}'), 'PT400 invalid_field',
          'a blank reason is 400 invalid_field');
select is(pg_temp.resolve(pg_temp.report_of('rex', 'tom'), '{"status": "dismissed"}'), 'PT400 invalid_field',
          'no reason is 400 invalid_field');
select is((select count(*) from app.user_reports where status = 'open'), 3::bigint, '... and nothing was resolved');
select is((select (r).body -> 'report' ->> 'status' from (select api.moderation_reports_resolve(test.token('mod'),
               jsonb_build_object('id', pg_temp.report_of('rex', 'tom')), '{"status": "actioned", "reason": "  renamed the user  "}') as r) x),
          'actioned', 'mod resolves rex''s report as actioned');
select is((select row(status, resolved_by = test.uid('mod'), resolution, resolved_at = now())::text from app.user_reports
           where id = pg_temp.report_of('rex', 'tom')), row('actioned', true, 'renamed the user', true)::text,
          '... with who, when and the reason (trimmed)');
select is((select row(moderator = test.uid('mod'), action, user_id = test.uid('tom'), report_id = pg_temp.report_of('rex', 'tom'),
                      reason, details)::text from app.moderation_actions),
          row(true, 'resolve_report', true, true, 'renamed the user', '{"status": "actioned"}'::jsonb)::text,
          'the audit names the moderator, the report, the user and the reason');
select is(pg_temp.resolve(pg_temp.report_of('rex', 'tom'), '{"status": "dismissed", "reason": "again"}'), 'PT409 report_resolved',
          'resolving it again is 409 report_resolved');
select is(pg_temp.resolve('00000000-0000-4000-8000-000000000000', '{"status": "dismissed", "reason": "x"}'), 'PT404 report_not_found',
          'an unknown report is 404 report_not_found');
select is((pg_temp.ids(pg_temp.list('{"status": "actioned"}')), jsonb_array_length(pg_temp.list('{}') -> 'reports')),
          (array[pg_temp.report_of('rex', 'tom')], 2), 'status=actioned lists it; two stay open');

select * from finish();
rollback;
