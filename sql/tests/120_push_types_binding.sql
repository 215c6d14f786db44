-- events_push fires for the types of app.push_types only (0033): its WHEN clause lists them,
-- written by app.bind_events_push, and a statement that changes app.push_types writes it
-- again, so adding or removing a push type is still one row of data.
begin;
select plan(8);
select test.new_user('ada');
select test.new_user('bo');
select api.me_push_tokens_update(test.token('ada'), '{}', jsonb_build_object('token', repeat('ab', 32), 'platform', 'apns',
                                                                             'environment', 'sandbox'));
create function pg_temp.when_types() returns text[] language sql as $$
    select array(select m[1] from regexp_matches(pg_get_triggerdef(t.oid), '([a-z_]+\.[a-z_]+)', 'g') m
                 where m[1] not like 'app.%' and m[1] not like 'new.%' order by 1)
    from pg_trigger t where t.tgrelid = 'app.events'::regclass and t.tgname = 'events_push'
$$;
create function pg_temp.queued() returns bigint language sql as $$
    select count(*) from app.push_outbox o join app.push_tokens p on p.token = o.token where p.user_id = test.uid('ada')
$$;

select is(pg_temp.when_types(), array(select t.type from app.push_types t order by 1),
          'events_push''s WHEN clause lists exactly the types of app.push_types');
select matches((select pg_get_triggerdef(t.oid) from pg_trigger t
                where t.tgrelid = 'app.events'::regclass and t.tgname = 'events_push'),
               'WHEN \(\(\(new\.user_id IS NOT NULL\) AND ', '... for recipients'' events only (no broadcast)');

-- A type that does not push passes by; one that does queues one row per token.
insert into app.events (user_id, type, payload) values (test.uid('ada'), 'room.invited', jsonb_build_object('user_id', test.uid('bo')));
select is(pg_temp.queued(), 0::bigint, 'room.invited is no push type: nothing queued');
insert into app.events (user_id, type, payload)
values (test.uid('ada'), 'friend_request.received', jsonb_build_object('request_id', gen_random_uuid(), 'user_id', test.uid('bo')));
select is(pg_temp.queued(), 1::bigint, 'friend_request.received pushes: one row for Ada''s token');

-- Adding a push type rebinds the trigger at once, in the adding transaction.
insert into app.push_types (type, loc_key) values ('room.invited', 'push.room.invited');
select ok('room.invited' = any (pg_temp.when_types()), 'a new row of app.push_types joins the WHEN clause');
insert into app.events (user_id, type, payload) values (test.uid('ada'), 'room.invited', jsonb_build_object('user_id', test.uid('bo')));
select is(pg_temp.queued(), 2::bigint, '... and its events queue a push');

-- Removing it: no more pushes of that type.
delete from app.push_outbox o where o.type = 'room.invited';
delete from app.push_types t where t.type = 'room.invited';
select ok(not ('room.invited' = any (pg_temp.when_types())), 'a removed push type leaves the WHEN clause');
insert into app.events (user_id, type, payload) values (test.uid('ada'), 'room.invited', jsonb_build_object('user_id', test.uid('bo')));
select is(pg_temp.queued(), 1::bigint, '... and its events queue nothing again');

select * from finish();
rollback;
