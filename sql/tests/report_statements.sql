-- report.slowest_statements: this database counts the statements inside functions too, and
-- focus_report reads every role's statements through the view, texts included, without values.
-- The scripts' clusters load pg_stat_statements (shared_preload_libraries); a cluster that does
-- not (bootstrapped by hand, a DBA's copy) still has the extension and the view, and reading the
-- view says the library is not loaded (55000) rather than answering wrong: the figures are
-- skipped there.
begin;
select plan(7);

-- What `query` returns when run as `role` (the first column of the first row).
create function pg_temp.as_role(role name, query text) returns text language plpgsql as $$
declare
    v_value text;
begin
    execute format('set local role %I', role);
    execute query into v_value;
    reset role;
    return v_value;
end
$$;

-- Whether this cluster loads the library (the statistics exist only then).
create function pg_temp.loaded() returns boolean language sql as $$
    select 'pg_stat_statements' = any (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))
$$;
select is(current_setting('pg_stat_statements.track'), 'all', 'this database counts statements inside functions too');
select has_view('report', 'slowest_statements', 'report.slowest_statements exists');

-- A request as the server makes it (focus_api), with a value the text must not keep. Made five
-- times: pg_stat_statements evicts its least-used entries when full (pg_stat_statements.max),
-- and under the other pgTAP stream's churn an entry called once was evicted before it was read.
set local role focus_api;
select status from api.shop_items_list(null, '{"marker": "do-not-keep-this-value"}'::jsonb, '{}'::jsonb);
select status from api.shop_items_list(null, '{"marker": "do-not-keep-this-value"}'::jsonb, '{}'::jsonb);
select status from api.shop_items_list(null, '{"marker": "do-not-keep-this-value"}'::jsonb, '{}'::jsonb);
select status from api.shop_items_list(null, '{"marker": "do-not-keep-this-value"}'::jsonb, '{}'::jsonb);
select status from api.shop_items_list(null, '{"marker": "do-not-keep-this-value"}'::jsonb, '{}'::jsonb);
reset role;

select is(test.error_as('focus_report', 'select * from report.slowest_statements'),
          case when pg_temp.loaded() then 'ok' else '55000' end,
          'focus_report reads it (where the cluster does not load the library, it is told so: 55000)');
select case when pg_temp.loaded() then
           ok(pg_temp.as_role('focus_report', $$ select count(*) from report.slowest_statements
                                                where toplevel and role = 'focus_api' and query like '%api.shop_items_list(%' $$)::integer >= 1,
              'focus_report sees focus_api''s statement with its text (pg_read_all_stats)')
       else skip('this cluster does not load pg_stat_statements', 1) end;
select case when pg_temp.loaded() then
           ok(pg_temp.as_role('focus_report', $$ select count(*) from report.slowest_statements
                                                where not toplevel and role = 'focus_owner' and query ilike '%from app.%' $$)::integer >= 1,
              '... and the statements the endpoints ran inside, as their owner')
       else skip('this cluster does not load pg_stat_statements', 1) end;
select case when pg_temp.loaded() then
           is(pg_temp.as_role('focus_report', $$ select count(*) from report.slowest_statements
                                                where query like '%do-not-keep-this-value%' $$)::integer, 0,
              'no text keeps a value')
       else skip('this cluster does not load pg_stat_statements', 1) end;
select is(test.error_as('focus_api', 'select * from report.slowest_statements'), '42501', 'focus_api cannot read it');

select * from finish();
rollback;
