-- The registries (sql/app/170_registries.sql, migration 0064): each column they guard refuses a
-- value its registry does not hold and takes one as soon as it is a row (the recipe "one row in
-- one migration": the statement trigger writes the check again, NOT VALID, in that transaction);
-- their rows are never deleted nor their keys changed; each row is written by some function or
-- trigger (or retired); they hold exactly today's values, and the checks name exactly their
-- rows. The scheduled jobs' registry is app.scheduled_jobs itself: its rows are the branches of
-- api.job_step.
begin;
select plan(27);
select test.new_user('ann');

-- Today's values, exactly.
select is((select string_agg(type, ' ' order by type) from app.event_types),
          'achievement.unlocked balance.changed block.added block.removed catalog.changed config.changed '
          'friend.removed friend.updated friend_request.accepted friend_request.ended friend_request.received '
          'gift.accepted gift.declined gift.received item.acquired profile.changed report.created room.ended '
          'room.finished room.gave_up room.invited room.joined room.left room.started selection.changed '
          'session.abandoned session.finished session.started settings.changed streak.frozen tips.changed',
          'app.event_types holds the 31 event types');
select is((select string_agg(type, ' ' order by type) from app.event_types where broadcast),
          'catalog.changed config.changed tips.changed', '... three of them broadcast');
select is((select string_agg(entry, ' ' order by entry) from app.ledger_entries),
          'bonus earn freeze gift grant reward spend', 'app.ledger_entries holds the 7 entries');
select is((select string_agg(kind, ' ' order by kind) from app.mail_kinds),
          'address_taken deletion_code email_verification message parental_consent parental_consent_recorded password_reset reminder signup_code', 'app.mail_kinds holds the 9 kinds');
select is((select string_agg(name, ' ' order by name) from app.scheduled_jobs),
          'compact_product_rollups erase_idle_guests expire_gifts partitions prune reminders settle_rooms shop_windows', 'app.scheduled_jobs holds the 8 jobs');
select is(app.registry_guards_refresh(), 0, 'every check names exactly its registry''s rows: nothing to write');

-- Every row is written somewhere (its value quoted in a function of app or api, or a trigger's
-- argument, or the column's default), or retired.
create temporary table sources on commit drop as
select p.prosrc as source from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('app', 'api')
union all
select encode(t.tgargs, 'escape') from pg_trigger t join pg_class c on c.oid = t.tgrelid
join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'app'
union all
select pg_get_expr(d.adbin, d.adrelid) from pg_attrdef d join pg_class c on c.oid = d.adrelid
join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'app';
select is((select string_agg(t.type, ' ') from app.event_types t
           where t.retired_on is null and not exists (select from sources s where strpos(s.source, '''' || t.type || '''') > 0
                                                                               or strpos(s.source, t.type || '\000') > 0)),
          null, 'every event type in use is written by a function or a trigger');
select is((select string_agg(e.entry, ' ') from app.ledger_entries e
           where e.retired_on is null and not exists (select from sources s where strpos(s.source, '''' || e.entry || '''') > 0)),
          null, 'every ledger entry in use is written by a function');
select is((select string_agg(k.kind, ' ') from app.mail_kinds k
           where k.retired_on is null and not exists (select from sources s where strpos(s.source, '''' || k.kind || '''') > 0)),
          null, 'every mail kind in use is written by a function or is the column''s default');
select is((select string_agg(m[1], ' ' order by m[1])
           from regexp_matches((select p.prosrc from pg_proc p where p.oid = 'api.job_step(text)'::regprocedure),
                               $$when '([a-z_]+)' then$$, 'g') m),
          (select string_agg(name, ' ' order by name) from app.scheduled_jobs),
          'api.job_step has a branch for each scheduled job, and no other');

-- A value no registry holds is refused.
select throws_ok(format($$ insert into app.events (user_id, type) values (%L, 'balance.moved') $$, test.uid('ann')),
                 '23514', null, 'app.events refuses an unknown type');
select throws_ok(format($$ insert into app.coin_ledger (user_id, entry, amount, reason) values (%L, 'windfall', 5, 'test') $$, test.uid('ann')),
                 '23514', null, 'app.coin_ledger refuses an unknown entry');
select throws_ok(format($$ insert into app.coin_ledger_archive_totals (user_id, entry, entries, coins) values (%L, 'windfall', 1, 5) $$,
                        test.uid('ann')),
                 '23514', null, 'app.coin_ledger_archive_totals refuses an unknown entry');
select throws_ok($$ insert into app.outgoing_mail (recipient, subject, body, kind) values ('ann@example.com', 's', 'b', 'newsletter') $$,
                 '23514', null, 'app.outgoing_mail refuses an unknown kind');
select throws_ok($$ insert into app.push_types (type, loc_key) values ('balance.moved', 'push.balance.moved') $$,
                 '23503', null, 'app.push_types refuses a type that is no event type');
select throws_ok($$ select * from api.job_step('tidy_up') $$, '22023', null, 'api.job_step refuses a job it does not know');

-- One row is all a new value takes, in the same transaction.
insert into app.event_types (type, broadcast, description) values ('test.noticed', false, 'A test''s own type.'),
                                                                 ('test.announced', true, 'A test''s own broadcast.');
insert into app.ledger_entries (entry, description) values ('windfall', 'A test''s own entry.');
insert into app.mail_kinds (kind, description) values ('newsletter', 'A test''s own kind.');
select lives_ok(format($$ insert into app.events (user_id, type) values (%L, 'test.noticed'), (null, 'test.announced') $$, test.uid('ann')),
                'a new event type, and a new broadcast type, are written once they are rows');
select throws_ok(format($$ insert into app.events (user_id, type) values (%L, 'test.announced') $$, test.uid('ann')),
                 '23514', null, '... a broadcast type to one person is still refused (events_check)');
select lives_ok(format($$ insert into app.coin_ledger (user_id, entry, amount, reason) values (%L, 'windfall', 5, 'test') $$, test.uid('ann')),
                'a new ledger entry is written once it is a row');
select lives_ok($$ insert into app.outgoing_mail (recipient, subject, body, kind) values ('ann@example.com', 's', 'b', 'newsletter') $$,
                'a new mail kind is written once it is a row');
select is((select string_agg(distinct c.convalidated::text, ' ') from pg_constraint c
           where c.conname in ('event_type_check', 'events_check', 'coin_ledger_entry_check', 'outgoing_mail_kind_check')),
          'false', 'the checks were written NOT VALID (no row read)');
select is(app.registry_guards_refresh(), 0, '... and name their registries'' rows');

-- Rows stay: a value old rows hold must stay valid.
select throws_ok($$ delete from app.event_types where type = 'test.noticed' $$, '23001', null, 'an event type is never deleted');
select throws_ok($$ update app.event_types set broadcast = true where type = 'test.noticed' $$, '23001', null,
                 '... nor made a broadcast');
select throws_ok($$ update app.ledger_entries set entry = 'windfalls' where entry = 'windfall' $$, '23001', null,
                 'a ledger entry is never renamed');
select throws_ok($$ delete from app.mail_kinds where kind = 'newsletter' $$, '23001', null, 'a mail kind is never deleted');
select lives_ok($$ update app.mail_kinds set retired_on = current_date, description = 'Retired by a test.' where kind = 'newsletter' $$,
                'a row is retired instead, its description kept up to date');

select * from finish();
rollback;
