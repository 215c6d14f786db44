-- Moderator actions: rename (through the same display-name check as a user's own rename),
-- remove an avatar, suspend until a time, ban; each audited with the moderator and a required
-- reason; the audit is append-only and forgets the details when the user deletes the account.
begin;
select plan(24);
select test.new_user(name) from unnest(array['mod', 'tom', 'zed']) as name;
insert into app.moderators (user_id) values (test.uid('mod'));
create function pg_temp.act(endpoint text, target text, body jsonb, name text default 'mod') returns text language plpgsql as $$
begin
    return test.error_of(format('select %s(test.token(%L), %L, %L)', endpoint, name, jsonb_build_object('id', test.uid(target)), body));
end
$$;
create function pg_temp.hint_of(statement text) returns text language plpgsql as $$
declare
    v_hint text;
begin
    execute statement;
    return null;
exception when others then
    get stacked diagnostics v_hint = pg_exception_hint;
    return v_hint;
end
$$;

-- rename
select is(pg_temp.act('api.moderation_users_rename', 'tom', '{"display_name": "Player 7", "reason": "a slur"}', 'zed'),
          'PT403 not_moderator', 'zed, not a moderator, may not rename');
select is(pg_temp.act('api.moderation_users_rename', 'tom', '{"display_name": "Player 7"}'), 'PT400 invalid_field', 'a rename needs a reason');
select is(pg_temp.act('api.moderation_users_rename', 'tom', '{"display_name": "   ", "reason": "x"}'), 'PT400 invalid_display_name',
          'a blank name is 400 invalid_display_name, as on a user''s own rename');
select is(pg_temp.act('api.moderation_users_rename', 'tom', jsonb_build_object('display_name', repeat('x', 41), 'reason', 'x')),
          'PT400 invalid_display_name', 'so is a name of 41 characters');
select is(pg_temp.act('api.moderation_users_rename', 'tom', '{"display_name": "A", "reason": "x", "note": "y"}'), 'PT400 invalid_field',
          'an unknown key is 400 invalid_field');
select is(pg_temp.act('api.moderation_users_rename', 'mod', '{"display_name": "Boss", "reason": "x"}'), 'PT422 cannot_moderate_self',
          'a moderator may not act on their own account');
select is(test.error_of($$ select api.moderation_users_rename(test.token('mod'), '{"id": "00000000-0000-4000-8000-000000000000"}',
                                                             '{"display_name": "A", "reason": "x"}') $$),
          'PT404 user_not_found', 'an unknown user is 404 user_not_found');
select is((select display_name from app.users where id = test.uid('tom')), 'Tom', 'none of that renamed tom');
select ok((select bool_and(p.prosrc ~ 'api\.display_name_field\(') from pg_proc p
           where p.oid in ('api.moderation_users_rename(text, jsonb, jsonb)'::regprocedure, 'api.me_update(text, jsonb, jsonb)'::regprocedure,
                           'api.auth_register(text, jsonb, jsonb)'::regprocedure)),
          'a moderator''s rename, a user''s own and sign-up read the name with the one function api.display_name_field');
select is(pg_temp.act('api.moderation_users_rename', 'tom', '{"display_name": "  Player 7 ", "reason": "a slur"}'), 'ok', 'mod renames tom');
select is((select display_name from app.users where id = test.uid('tom')), 'Player 7', '... to the trimmed name');

-- avatar
insert into app.avatars (user_id, content_type, data) values (test.uid('tom'), 'image/png', '\x89504e470d0a1a0a00'::bytea);
select is(pg_temp.act('api.moderation_users_avatar_delete', 'tom', '{"reason": "nudity"}'), 'ok', 'mod removes tom''s avatar');
select is((select count(*) from app.avatars where user_id = test.uid('tom')), 0::bigint, '... which is gone');
select is(pg_temp.act('api.moderation_users_avatar_delete', 'tom', '{"reason": "nudity"}'), 'PT404 avatar_not_found',
          'removing it again is 404 avatar_not_found');

-- suspend and ban
select is(pg_temp.act('api.moderation_users_suspend', 'tom', jsonb_build_object('until', api.iso(now()), 'reason', 'spam')),
          'PT400 invalid_field', 'a suspension ending now (not in the future) is 400 invalid_field');
select is(pg_temp.act('api.moderation_users_suspend', 'tom', '{"until": "tomorrow", "reason": "spam"}'), 'PT400 invalid_field',
          'until must be an RFC 3339 time');
select is(pg_temp.act('api.moderation_users_suspend', 'tom', jsonb_build_object('until', api.iso(test.day_start() + interval '3 days'), 'reason', 'spam')),
          'ok', 'mod suspends tom until three days from today''s start');
select is(pg_temp.hint_of($$ select api.me_get(test.token('tom'), '{}', '{}') $$),
          jsonb_build_object('suspended_until', api.iso(test.day_start() + interval '3 days'))::text,
          'tom''s 403 account_suspended says until when');
select is(pg_temp.act('api.moderation_users_ban', 'tom', '{"reason": "spam again"}'), 'ok', 'mod bans tom');
select is(pg_temp.hint_of($$ select api.me_get(test.token('tom'), '{}', '{}') $$), '{"suspended_until": null}',
          'a ban''s 403 has suspended_until null');

-- the audit
select is((select array_agg(row(m.moderator = test.uid('mod'), m.action, m.user_id = test.uid('tom'), m.reason, m.details)::text
                            order by m.action)
           from app.moderation_actions m),
          array[row(true, 'ban', true, 'spam again', '{}'::jsonb)::text,
                row(true, 'remove_avatar', true, 'nudity', '{}'::jsonb)::text,
                row(true, 'rename', true, 'a slur', '{"display_name": "Player 7"}'::jsonb)::text,
                row(true, 'suspend', true, 'spam', jsonb_build_object('until', api.iso(test.day_start() + interval '3 days')))::text],
          'each action is audited once, naming the moderator, with its reason and what changed (nothing for refused ones)');
select is(test.error_of($$ update app.moderation_actions set reason = 'nothing' $$), 'P0001', 'the audit cannot be rewritten');
select is(test.error_of($$ delete from app.moderation_actions $$), 'P0001', '... nor deleted');

-- a banned user may still delete the account; the audit then forgets the name given
select api.me_delete(test.token('tom'), '{}', '{"password": "correct horse"}');
select is((select count(*) filter (where details <> '{}') from app.moderation_actions where user_id = test.uid('tom')), 0::bigint,
          'when tom deletes the account, the audit keeps the actions but not the name mod gave him');

select * from finish();
rollback;
