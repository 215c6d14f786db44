-- api.endpoints: every row names a function of the endpoint's shape that the server may execute,
-- its path parameters are the ones its template names, its codes are registered (api.problems,
-- as is every code a function raises, with the status it is registered with), and the table
-- refuses what no route can be (an unknown method, a path that is no template, a function that
-- does not exist, a body or a success status HTTP has no use for). What the route table and
-- docs/openapi.json make of the rows is checked by scripts/lint (scripts/lib/endpoints.py).
begin;
select plan(18);

select ok((select count(*) from api.endpoints) > 70, 'the endpoints are declared');

select is(array(select e.method || ' ' || e.path from api.endpoints e join pg_proc p on p.oid = e.function
                where oidvectortypes(p.proargtypes) <> case e.body when 'image' then 'text, jsonb, bytea' else 'text, jsonb, jsonb' end
                   or p.prorettype <> case e.response when 'file' then 'api.file_reply' else 'api.reply' end::regtype
                order by 1),
          '{}'::text[], 'every function takes (token, params, body) and answers the reply its route reads');

select is(array(select e.method || ' ' || e.path from api.endpoints e
                where not has_function_privilege('focus_api', e.function, 'execute') order by 1),
          '{}'::text[], 'the server may execute every declared function');

select is(array(select 'api.' || p.proname from pg_proc p
                where p.pronamespace = 'api'::regnamespace and has_function_privilege('focus_api', p.oid, 'execute')
                  and oidvectortypes(p.proargtypes) in ('text, jsonb, jsonb', 'text, jsonb, bytea')
                  and obj_description(p.oid, 'pg_proc') !~ '^[A-Z]+ /[^ ]* \(web (page|form)\)' and p.proname <> 'events_stream_open'
                  and not exists (select from api.endpoints e where e.function = p.oid)
                order by 1),
          '{}'::text[], 'every endpoint the server may execute is declared (but the web pages'' and the stream''s opening)');

select is(array(select e.method || ' ' || e.path || ' ' || k from api.endpoints e, jsonb_object_keys(e.parameters) k
                where e.path not like '%{' || k || '}%' order by 1),
          '{}'::text[], 'a declared parameter schema names a parameter of its path');

select is(array(select e.method || ' ' || e.path || ' ' || c from api.endpoints e, unnest(e.errors) c
                where not exists (select from api.problems p where p.code = c) order by 1),
          '{}'::text[], 'every code an endpoint names is registered in api.problems');

-- The codes functions raise with a literal status and code (api.fail, api.problem; api.fail_field
-- raises invalid_field), wherever they are written.
create temporary view raised as
select distinct m[1]::integer as status, m[2] as code
from pg_proc p, regexp_matches(p.prosrc, 'api\.(?:fail|problem)\((\d+), ''([a-z_]+)''', 'g') m
where p.pronamespace in ('api'::regnamespace, 'app'::regnamespace);

select ok((select count(*) from raised) > 40, 'the functions'' codes are found');

select is(array(select r.code from raised r where not exists (select from api.problems p where p.code = r.code) order by 1),
          '{}'::text[], 'every code a function raises is registered in api.problems');

select is(array(select r.code || ' ' || r.status from raised r join api.problems p using (code)
                where p.status <> r.status order by 1),
          '{}'::text[], 'every code is raised with the status it is registered with');

select is(array(select coalesce(e.operation_id, p.proname) from api.endpoints e join pg_proc p on p.oid = e.function
                group by 1 having count(*) > 1),
          '{}'::text[], 'each operationId is one endpoint''s (a second path of a function names its own)');

-- What the table refuses, each as its constraint says.
create function pg_temp.refused(columns text, row_values text) returns text language plpgsql as $$
begin
    execute format('insert into api.endpoints (%s) values (%s)', columns, row_values);
    return 'written';
exception when others then
    return sqlstate;
end
$$;
select is(pg_temp.refused('method, path, function', $$'TRACE', '/me', 'api.me_get'$$), '23514', 'an unknown method is refused');
select is(pg_temp.refused('method, path, function', $$'GET', 'me', 'api.me_get'$$), '23514', 'a path not from the root is refused');
select is(pg_temp.refused('method, path, function', $$'GET', '/me/{Id}', 'api.me_get'$$), '23514', 'a parameter not in lower case is refused');
select is(pg_temp.refused('method, path, function', $$'GET', '/nowhere', 'api.no_such_function'$$), '42883',
          'a function that does not exist is refused when the row is written');
select is(pg_temp.refused('method, path, function, body', $$'GET', '/nowhere', 'api.me_get', 'xml'$$), '23514', 'an unknown body is refused');
select is(pg_temp.refused('method, path, function, status', $$'GET', '/nowhere', 'api.me_get', 404$$), '23514',
          'a success status outside 2xx is refused (problems are codes)');
select is(pg_temp.refused('method, path, function', $$'GET', '/me', 'api.me_get'$$), '23505', 'a method and path are declared once');
select is(pg_temp.refused('method, path, function, errors', $$'GET', '/nowhere', 'api.me_get', '{no_such_code}'$$), '23503',
          'a code api.problems lacks is refused when the row is written');

select * from finish();
rollback;
