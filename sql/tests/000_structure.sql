-- Structure and privileges: schemas, SECURITY DEFINER with a fixed search_path, and roles
-- that can reach exactly what docs/operations.md's role table says.
-- clock: any
begin;
select plan(11);

select has_schema('app');
select has_schema('api');
select has_schema('report');

select is_empty($$
    select p.oid::regprocedure::text from pg_proc p
    where p.pronamespace = 'api'::regnamespace and p.prosecdef
      and p.proconfig[1] is distinct from 'search_path=public, pg_temp'  -- then other settings may follow (api.events_ring's plan_cache_mode)
$$, 'every SECURITY DEFINER function in api fixes search_path = public, pg_temp');

select is_empty($$
    select p.oid::regprocedure::text from pg_proc p
    where p.pronamespace = 'api'::regnamespace
      and has_function_privilege('focus_api', p.oid, 'execute')
      and oidvectortypes(p.proargtypes) not in ('text, jsonb, jsonb', 'text, jsonb, bytea')
      and p.proname not in ('parse_body', 'parse_image', 'ready', 'events_prune', 'jobs_run', 'idempotent', 'assets_publish',
                          'use_language', 'languages_offered', 'push_claim', 'push_settle')
      and p.proname <> 'events_ring'  -- the listener's doorbell (0032_event_ids.sql)
$$, 'focus_api executes endpoints, body parsers, events_prune, jobs_run, idempotent, assets_publish, use_language, languages_offered and the push sender''s two only, no internal helper');

select is_empty($$
    select p.oid::regprocedure::text from pg_proc p
    where p.pronamespace = 'api'::regnamespace
      and oidvectortypes(p.proargtypes) in ('text, jsonb, jsonb', 'text, jsonb, bytea')
      and not (has_function_privilege('focus_api', p.oid, 'execute') and p.prosecdef
               and obj_description(p.oid, 'pg_proc') is not null)
$$, 'every endpoint is SECURITY DEFINER, executable by focus_api, and commented');

select is_empty($$
    select c.oid::regclass::text from pg_class c
    where c.relnamespace in ('app'::regnamespace, 'api'::regnamespace)
      and c.relkind in ('r', 'v', 'm', 'p', 'S')
      and (has_table_privilege('focus_api', c.oid, 'select, insert, update, delete')
           or has_table_privilege('focus_report', c.oid, 'select, insert, update, delete'))
$$, 'focus_api and focus_report cannot touch a table or sequence directly');

select ok(not has_schema_privilege('focus_api', 'app', 'usage')
          and not has_schema_privilege('focus_report', 'app', 'usage')
          and not has_schema_privilege('focus_report', 'api', 'usage'),
          'neither login role may even look into app; focus_report not into api');

select ok(has_schema_privilege('focus_report', 'report', 'usage')
          and not has_schema_privilege('focus_api', 'report', 'usage'),
          'report is for focus_report only');

-- A raiser is a function that raises itself or calls a raiser (followed through the sources).
select is_empty($$
    with recursive raisers(oid, name) as (
        select p.oid, p.proname from pg_proc p
        where p.pronamespace = 'api'::regnamespace and p.prosrc ~* '\mraise\M'
        union
        select p.oid, p.proname from pg_proc p, raisers r
        where p.pronamespace = 'api'::regnamespace and p.prosrc ~ ('api\.' || r.name || '\(')
    )
    select p.oid::regprocedure::text from pg_proc p join raisers r on r.oid = p.oid
    where p.provolatile = 'i'
$$, 'no function in api that can raise is IMMUTABLE (the planner could fold it at plan time)');

select is_empty($$
    select p.proname from pg_proc p
    where p.pronamespace = 'api'::regnamespace
      and oidvectortypes(p.proargtypes) in ('text, jsonb, jsonb', 'text, jsonb, bytea')
      and has_function_privilege('focus_api', p.oid, 'execute')
      and p.proname !~ '^[a-z]+(_[a-z]+)*_(list|get|create|update|delete|register|login|logout|sync|start|finish|abandon|rate|accept|decline|confirm|resolve|rename|suspend|ban|open|join|leave)$'
$$, 'every endpoint is named resource_verb (sql/api/000_core.sql)');

select * from finish();
rollback;
