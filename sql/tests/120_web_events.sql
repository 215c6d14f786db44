-- report.created reaches every moderator (and nobody else) when a report is filed; the
-- display name history follows every change and goes with the account.
begin;
select plan(6);
select test.new_user(name) from unnest(array['mod', 'mod2', 'ann', 'bo']) as name;
select test.new_events();
select is(test.new_events(), '{}', 'no event before a report');
select api.users_report_create(test.token('ann'), jsonb_build_object('id', test.uid('bo')), '{"reason": "spam"}');
select is(test.new_events(), '{}', 'without moderators a report tells nobody');
insert into app.moderators (user_id) select test.uid(n) from unnest(array['mod', 'mod2']) n;
select api.users_report_create(test.token('bo'), jsonb_build_object('id', test.uid('ann')), '{"reason": "harassment"}');
select is(test.new_events(), array['mod report.created', 'mod2 report.created'], 'each moderator hears of a new report');
select is((select payload - 'report_id' from app.events where type = 'report.created' limit 1), '{"reason": "harassment"}',
          '... with its id and reason only');

select api.me_update(test.token('bo'), '{}', '{"display_name": "Robert"}');
select is((select array_agg(display_name order by id) from app.display_name_history where user_id = test.uid('bo')), array['Bo', 'Robert'],
          'the name history has the sign-up name and each change');
select api.me_delete(test.token('bo'), '{}', '{"password": "correct horse"}');
select is((select count(*)::integer from app.display_name_history where user_id = test.uid('bo')), 0, 'it goes with the account');
select * from finish();
rollback;
