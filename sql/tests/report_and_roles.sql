-- Reports and roles, proven by acting as each role.
begin;
-- The counts of 0013 are kept at commit; this file reads them in its own transaction.
set constraints all immediate;
select plan(15);

select is(
    (select array_agg(c.relname::text order by c.relname) from pg_class c where c.relnamespace = 'report'::regnamespace),
    array['active_users', 'activity_per_day_by_client', 'coin_economy_per_day', 'coin_economy_per_day_by_client',
          'counter_reconciliation', 'daily_active_users', 'focused_minutes_per_day', 'friendship_funnel_per_day',
          'ledger_reconciliation', 'moderation_actions', 'outbox_backlog', 'partitions', 'retention_by_signup_week',
          'sales_per_item', 'scheduled_job_status', 'sessions_per_day_by_path', 'signups_per_day', 'slowest_statements',
          'tips_shown_per_level', 'user_reports'],
    'report has the twenty views');
select is_empty($$ select c.relname from pg_class c where c.relnamespace = 'report'::regnamespace
                   and obj_description(c.oid, 'pg_class') is null $$, 'every report view has a comment');

-- Some activity to report on.
select test.new_user('reporter');
select app.grant_coins(test.uid('reporter'), 500, 'report test');

select is(test.error_as('focus_report', 'select * from report.coin_economy_per_day'), 'ok', 'focus_report reads report views');
select is(test.error_as('focus_report', 'select * from report.retention_by_signup_week, report.signups_per_day, report.active_users, '
                                        'report.activity_per_day_by_client, report.coin_economy_per_day_by_client'),
          'ok', 'focus_report reads the product views');
select is(test.error_as('focus_report', 'select * from report.sales_per_item'), 'ok', '... every one of them');
select is(test.error_as('focus_report', 'select * from app.users'), '42501', 'focus_report cannot read app tables');
select is(test.error_as('focus_report', $$ select api.me_get('x', '{}', '{}') $$), '42501', 'focus_report cannot call api functions');
select is(test.error_as('focus_report', $$ select app.grant_coins(gen_random_uuid(), 1, 'x') $$), '42501', 'focus_report cannot grant coins');
select is((select outstanding_end_of_day::integer from report.coin_economy_per_day order by day desc limit 1),
          (select sum(balance)::integer from app.users), 'outstanding coins equal the sum of balances');

select is(test.error_as('focus_api', $$ select api.shop_items_list(null, '{}', '{}') $$), 'ok', 'focus_api executes endpoints');
select is(test.error_as('focus_api', 'select * from app.users'), '42501', 'focus_api cannot read app tables');
select is(test.error_as('focus_api', 'update app.users set balance = 1000000'), '42501', 'focus_api cannot write app tables');
select is(test.error_as('focus_api', 'select * from report.daily_active_users'), '42501', 'focus_api cannot read reports');
select is(test.error_as('focus_api', 'select api.issue_token(gen_random_uuid())'), '42501', 'focus_api cannot call internal helpers');
select is(test.error_as('focus_api', $$ select app.grant_coins(gen_random_uuid(), 1, 'x') $$), '42501', 'focus_api cannot grant coins');

select * from finish();
rollback;
