-- Reports: one open report per reporter and reported user (reporting again answers it and
-- stores nothing), and at most app.moderation_settings.max_reports_per_day new reports per
-- reporter in any 24 hours (429 too_many_reports with Retry-After).
begin;
select plan(11);
select test.new_user(name) from unnest(array['rex', 'ty', 'uma', 'vic', 'wes']) as name;
update app.moderation_settings set max_reports_per_day = 3;
create function pg_temp.report(a text, b text, reason text default 'spam') returns api.reply language sql as $$
    select api.users_report_create(test.token(a), jsonb_build_object('id', test.uid(b)), jsonb_build_object('reason', reason))
$$;
create function pg_temp.reports(a text, b text) returns bigint language sql as $$
    select count(*) from app.user_reports where reporter = test.uid(a) and reported = test.uid(b)
$$;

select is((pg_temp.report('rex', 'ty')).status, null, 'rex reports ty (201)');
select is(((r).status, (r).body -> 'report' -> 'id' = (select to_jsonb(id) from app.user_reports where reported = test.uid('ty'))),
          (200, true), 'reporting ty again, even for another reason, answers the open report (200)')
from (select pg_temp.report('rex', 'ty', 'harassment') as r) x;
select is(pg_temp.reports('rex', 'ty'), 1::bigint, '... and stores no second row');
select is(test.error_of($$ insert into app.user_reports (reporter, reported, reason) values (test.uid('rex'), test.uid('ty'), 'other') $$),
          '23505', 'the table itself holds one open report per reporter and reported user');
select pg_temp.report('rex', 'uma'), pg_temp.report('rex', 'vic');
select is(test.answer_of($$ select pg_temp.report('rex', 'wes') $$), 'PT429 too_many_reports',
          'a fourth new report in 24 hours (the limit set to 3 here) is 429 too_many_reports');
select is((pg_temp.report('rex', 'wes')).retry_after, 86400, '... with Retry-After until the oldest leaves the 24 hours');
select is(pg_temp.reports('rex', 'wes'), 0::bigint, '... and stores nothing');
select is((pg_temp.report('rex', 'ty')).status, 200, 'at the limit, reporting ty again still answers the open report');
select is(test.answer_of($$ select pg_temp.report('ty', 'wes') $$), 'ok', 'the limit is per reporter: ty may report wes');
update app.user_reports set status = 'dismissed', resolved_at = now(), resolution = 'not spam'
where reporter = test.uid('rex') and reported = test.uid('ty');
select is(test.answer_of($$ select pg_temp.report('rex', 'ty') $$), 'PT429 too_many_reports',
          'once that report is resolved, reporting ty again is a new report, which counts');
update app.moderation_settings set max_reports_per_day = 4;
select is(((pg_temp.report('rex', 'ty')).status, pg_temp.reports('rex', 'ty')), (null::integer, 2::bigint),
          'under the limit it is stored: a second report, the only open one');

select * from finish();
rollback;
