-- api blocks and reports: a user can block another (which ends whatever is between them and
-- keeps them apart) and report another to the moderators (report.user_reports).

-- A live account's id in the path: 404 user_not_found for an unknown or deleted one, 422
-- `self_code` for the caller's own.
create function api.other_user_param(params jsonb, user_id uuid, self_code text)
returns uuid
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_other uuid := api.uuid_field(other_user_param.params, 'id');
begin
    if v_other = other_user_param.user_id then
        perform api.fail(422, other_user_param.self_code, 'That is you.');
    end if;
    if not exists (select from app.users u where u.id = v_other and u.deleted_at is null) then
        perform api.fail(404, 'user_not_found', 'There is no such user.');
    end if;
    return v_other;
end
$$;

-- POST /users/{id}/block
-- Guarantees: a friendship or pending request between the two ends (recorded in
-- friendship_events as removed, cancelled or declined) under both users' locks, so a racing
-- accept ends before or finds nothing; from then on the blocked user's requests by email answer
-- as to anyone (201, a request the blocker never sees: api.request_hidden), the two are not
-- friends (so they leave each other's friends leaderboards, islands and avatars) and neither
-- is on the other's global board. The two no longer share a room that has not ended
-- (api.rooms_part: the one who is not the host leaves, the blocked one when neither hosts), and
-- the blocked user sees the caller as the block left them (api.user_card_for). Blocking again
-- answers the same (204), and so does blocking a user who blocked you: nothing in the answer
-- says whether they did. Locks: the waiting rooms of both, then both users' rows.
create function api.users_block_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(users_block_create.token);
    v_other uuid := api.other_user_param(users_block_create.params, v_user_id, 'cannot_block_self');
    v_pair app.friendships;
begin
    perform api.lock_waiting_rooms(v_user_id, v_other);
    v_pair := api.lock_pair(v_user_id, v_other);
    if v_pair.id is not null then
        delete from app.friendships f where f.id = v_pair.id;
        if not api.request_hidden(v_pair) then  -- a request its receiver never saw ends unheard
            perform api.record_friendship_event(v_pair, v_user_id,
                case when v_pair.status = 'accepted' then 'removed'
                     when v_pair.requested_by = v_user_id then 'cancelled' else 'declined' end);
        end if;
    end if;
    insert into app.blocks (blocker, blocked) values (v_user_id, v_other) on conflict do nothing;
    perform api.rooms_part(v_user_id, v_other);
    return api.ok(null);
end
$$;
grant execute on function api.users_block_create(text, jsonb, jsonb) to focus_api;
comment on function api.users_block_create(text, jsonb, jsonb) is
    'POST /users/{id}/block: ends any friendship or request between the two and parts them in any room not ended; '
    'their requests by email then answer as an unknown email; 404 user_not_found, 422 cannot_block_self; blocking twice is the same.';
insert into api.endpoints (method, path, function, status, errors)
values ('POST', '/users/{id}/block', 'api.users_block_create', 204,
        '{account_suspended, cannot_block_self, invalid_field, user_not_found}');

-- DELETE /users/{id}/block: 404 block_not_found unless the caller had blocked that user.
-- Unblocking restores nothing: the two may ask each other again. A request the blocked user
-- sent meanwhile (never shown to the caller) ends as declined, which is what its sender hears.
create function api.users_block_delete(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(users_block_delete.token);
    v_other uuid := api.uuid_field(users_block_delete.params, 'id');
    v_pair app.friendships;
begin
    if exists (select from app.users u where u.id = v_other and u.deleted_at is null) then
        v_pair := api.lock_pair(v_user_id, v_other);
    end if;
    delete from app.blocks b where b.blocker = v_user_id and b.blocked = v_other;
    if not found then
        perform api.fail(404, 'block_not_found', 'You have not blocked that user.');
    end if;
    if v_pair.status = 'pending' and v_pair.requested_by = v_other then
        delete from app.friendships f where f.id = v_pair.id;
        perform api.record_friendship_event(v_pair, v_user_id, 'declined');
    end if;
    return api.ok(null);
end
$$;
grant execute on function api.users_block_delete(text, jsonb, jsonb) to focus_api;
comment on function api.users_block_delete(text, jsonb, jsonb) is
    'DELETE /users/{id}/block: lifts the caller''s block; 404 block_not_found if there was none.';
insert into api.endpoints (method, path, function, status, errors)
values ('DELETE', '/users/{id}/block', 'api.users_block_delete', 204,
        '{account_suspended, block_not_found, invalid_field}');

-- GET /me/blocks?limit=&cursor=: {blocks: [{user: UserCard, created_at}], next_cursor}, newest
-- first (created_at, then the blocked user's id, both descending, read from blocks_blocker_time,
-- migration 0022), at most `limit` (1 to 200; 200 when absent, as for friends); next_cursor
-- null on the last page.
create function api.me_blocks_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_blocks_list.token);
    v_limit integer := api.page_limit(me_blocks_list.params, 200, 200);
    v_key jsonb := api.cursor_decode(me_blocks_list.params, 'blocks', array['time', 'uuid']);
    v_page app.blocks[];
begin
    select coalesce(array_agg(p.b order by (p.b).created_at desc, (p.b).blocked desc), '{}') into v_page
    from (select b from app.blocks b
          where b.blocker = v_user_id
            and (v_key is null or (b.created_at, b.blocked) < ((v_key ->> 0)::timestamptz, (v_key ->> 1)::uuid))
          order by b.created_at desc, b.blocked desc
          limit v_limit + 1) p;
    return api.ok(jsonb_build_object(
        'blocks', coalesce((select jsonb_agg(jsonb_build_object('user', api.user_card(b.blocked), 'created_at', api.iso(b.created_at))
                                             order by b.created_at desc, b.blocked desc)
                            from unnest(v_page[1:v_limit]) b), '[]'),
        'next_cursor', case when cardinality(v_page) > v_limit
                            then api.cursor_encode('blocks', jsonb_build_array(api.iso(v_page[v_limit].created_at),
                                                                               v_page[v_limit].blocked)) end));
end
$$;
grant execute on function api.me_blocks_list(text, jsonb, jsonb) to focus_api;
comment on function api.me_blocks_list(text, jsonb, jsonb) is
    'GET /me/blocks: the users the caller blocked, newest first, paged (limit 1 to 200, 200 by default; cursor, '
    'next_cursor; 400 invalid_cursor).';
insert into api.endpoints (method, path, function, errors)
values ('GET', '/me/blocks', 'api.me_blocks_list', '{account_suspended, invalid_cursor, invalid_field}');

-- Report = {id, user_id, reason, details, created_at}: user_id is the reported user.
create function api.report_json(report app.user_reports)
returns jsonb
language sql stable
as $$
    select jsonb_build_object('id', report.id, 'user_id', report.reported, 'reason', report.reason,
                              'details', report.details, 'created_at', api.iso(report.created_at))
$$;

-- POST /users/{id}/report {reason, details?}
-- Guarantees: stored for moderators (report.user_reports, /moderation/reports) with the reporter
-- and status open; reason is one of spam, harassment, inappropriate_name, inappropriate_avatar,
-- other; details (trimmed) 1 to 1000 characters. Answers {report: Report} (201). While the
-- caller's report of that user is still open, reporting them again answers it (200) and
-- stores nothing (the unique index user_reports_one_open). More than
-- app.moderation_settings.max_reports_per_day new reports in 24 hours: 429 too_many_reports.
-- Reports by one reporter run one at a time (an advisory lock), so the count holds under
-- racing requests. Whether the reported user blocked the caller changes nothing in the answer.
-- 404 user_not_found, 422 cannot_report_self.
create function api.users_report_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(users_report_create.token);
    v_body jsonb := api.only_keys(users_report_create.body, array['reason', 'details']);
    v_reason text := api.choice(api.text_field(v_body, 'reason'), 'reason',
                                array['spam', 'harassment', 'inappropriate_name', 'inappropriate_avatar', 'other']);
    v_details text := btrim(api.text_field(v_body, 'details', required => false));
    v_other uuid := api.other_user_param(users_report_create.params, v_user_id, 'cannot_report_self');
    v_limit integer := (select s.max_reports_per_day from app.moderation_settings s);
    v_count integer;
    v_oldest timestamptz;
    v_report app.user_reports;
begin
    if length(v_details) not between 1 and 1000 then
        perform api.fail_field('details', 'must be 1 to 1000 characters.');
    end if;
    perform pg_advisory_xact_lock(hashtext('user-reports:' || v_user_id));
    select * into v_report from app.user_reports r
    where r.reporter = v_user_id and r.reported = v_other and r.status = 'open';
    if v_report.id is not null then
        return api.ok(jsonb_build_object('report', api.report_json(v_report)), status => 200);
    end if;
    select count(*)::integer, min(r.created_at) into v_count, v_oldest
    from app.user_reports r
    where r.reporter = v_user_id and r.created_at > now() - interval '24 hours';
    if v_count >= v_limit then
        return api.problem(429, 'too_many_reports', 'You sent too many reports today; wait before sending more.',
                           retry_after => greatest(1, ceil(extract(epoch from v_oldest + interval '24 hours' - now()))::integer));
    end if;
    insert into app.user_reports (reporter, reported, reason, details)
    values (v_user_id, v_other, v_reason, v_details)
    returning * into v_report;
    return api.ok(jsonb_build_object('report', api.report_json(v_report)));
end
$$;
grant execute on function api.users_report_create(text, jsonb, jsonb) to focus_api;
comment on function api.users_report_create(text, jsonb, jsonb) is
    'POST /users/{id}/report: a report for moderators (reason, optional details); again while open: the open one (200); '
    '429 too_many_reports past the daily limit; 404 user_not_found, 422 cannot_report_self.';
insert into api.endpoints (method, path, function, status, body, errors)
values ('POST', '/users/{id}/report', 'api.users_report_create', 201, 'json',
        '{account_suspended, cannot_report_self, invalid_field, too_many_reports, user_not_found}');
