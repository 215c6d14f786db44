-- Structure and privileges: schemas, SECURITY DEFINER with a fixed search_path, and roles
-- that can reach exactly what docs/operations.md's role table says.
-- clock: any
begin;
select plan(13);

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
      and p.proname not in ('parse_body', 'parse_image', 'ready', 'events_prune', 'jobs_run', 'jobs_due', 'job_claim', 'job_step', 'job_finished',
                          'idempotent', 'assets_publish',
                          'use_language', 'languages_offered', 'push_claim', 'push_settle',
                          'apple_revocations_claim', 'apple_revocations_settle')
      and p.proname <> 'events_ring'  -- the listener's doorbell (0032_event_ids.sql)
$$, 'focus_api executes endpoints, body parsers, events_prune, the scheduled jobs'' five, idempotent, assets_publish, use_language, languages_offered the push sender''s two and the Apple revocation sender''s two only, no internal helper');

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
      and p.proname !~ '^[a-z]+(_[a-z]+)*_(list|get|create|update|delete|register|login|logout|sync|start|finish|abandon|rate|accept|decline|confirm|resolve|rename|suspend|ban|open|join|leave|upgrade)$'
$$, 'every endpoint is named resource_verb (sql/api/000_core.sql)');

-- Plans kept (sql/api/000_core.sql): PostgreSQL 15 plans a SQL function's body again on every
-- call of the statement that calls it, so a SECURITY DEFINER function that only reads (never
-- inlined) is PL/pgSQL, whose plans last the session. The volatile ones write once a request.
select is_empty($$
    select p.oid::regprocedure::text from pg_proc p join pg_language l on l.oid = p.prolang
    where p.pronamespace = 'api'::regnamespace and p.prosecdef and l.lanname = 'sql' and p.provolatile <> 'v'
$$, 'no reading SECURITY DEFINER function in api is written in SQL (PL/pgSQL keeps its plans)');

-- And a one-expression SQL helper (no FROM) is inlined into the statement that calls it: the
-- plan of a call on a column names what the body does, not the function. PostgreSQL refuses
-- to inline an IMMUTABLE function whose body calls a stable one (jsonb_build_object, to_char,
-- extract on a timestamptz), and would then run it as a function call on every row.
create function pg_temp.not_inlined()
returns setof text
language plpgsql
as $$
declare
    v_function record;
    v_line text;
    v_plan text;
begin
    for v_function in
        select p.oid::regprocedure::text as signature, p.oid::regproc::text as name,
               (select string_agg('a' || n, ', ') from generate_series(1, p.pronargs) n) as arguments,
               (select string_agg(format('null::%s as a%s', format_type(t, null), n), ', ')
                from unnest(p.proargtypes::oid[]) with ordinality u(t, n)) as columns
        from pg_proc p join pg_language l on l.oid = p.prolang
        where p.pronamespace in ('api'::regnamespace, 'app'::regnamespace) and l.lanname = 'sql'
          and p.prokind = 'f' and not p.prosecdef and not p.proretset and p.proconfig is null and p.pronargs > 0
          and p.prosrc !~* '\mfrom\M'
    loop
        v_plan := '';
        for v_line in execute format('explain verbose select %s(%s) from (select %s offset 0) s',
                                     v_function.name, v_function.arguments, v_function.columns) loop
            v_plan := v_plan || v_line;
        end loop;
        if strpos(v_plan, v_function.name || '(') > 0 then
            return next v_function.signature;
        end if;
    end loop;
end
$$;
select is_empty('select * from pg_temp.not_inlined()',
                'every one-expression SQL helper in api and app is inlined where it is called');

select * from finish();
rollback;
