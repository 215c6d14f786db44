-- api endpoints: the one source of what an endpoint is to HTTP. Each api file declares its
-- endpoints here, beside their functions: the method and path, who may call it, its success
-- status, the body it takes and its limit, where it reads, whether the release controls hold it,
-- whether its answer is localized, and the problem codes its SQL answers. From this table
-- `scripts/lint --update` writes the server's route table
-- (Sources/FocusIsland/HTTP/Generated/Endpoints.swift) and, in docs/openapi.json, each
-- operation's path, method, operationId, security, path parameters, Idempotency-Key and
-- Accept-Language parameters and every problem answer; `scripts/lint` checks both are current.
-- What stays hand-written in docs/openapi.json: summaries, descriptions, the request and answer
-- schemas, query parameters and success answers (docs/contributing.md, "A new endpoint").
-- Recreated with schema api on every migrate, like the functions it names.

create table api.endpoints (
    method text not null check (method in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')),
    -- Literal segments and {parameter} segments; a parameter is a uuid unless `parameters`
    -- gives its schema.
    path text not null check (path ~ '^(/([A-Za-z0-9._-]+|\{[a-z_]+\}))+$'),
    -- Resolved when the row is written: a misspelt or missing function fails the migrate.
    function regproc not null,
    -- The operationId when it is not the function's name (a second path of one function).
    operation_id text check (operation_id ~ '^[a-z][a-z0-9_]*$'),
    -- bearer: a token is needed (401 unauthorized without a valid one); public: none is read.
    access text not null default 'bearer' check (access in ('bearer', 'public')),
    -- The status of a success the function does not choose otherwise (api.ok's status).
    status smallint not null default 200 check (status between 200 and 299),
    -- none: a body that says something is 400 body_not_allowed; json: an object, parsed by
    -- api.parse_body; optional_json: json when there is one, else {}; image: raw PNG or JPEG.
    body text not null default 'none' check (body in ('none', 'json', 'optional_json', 'image')),
    -- Bytes; null: the server's configured default (BODY_LIMIT).
    body_limit integer check (body_limit > 0),
    -- json: an api.reply; file: an api.file_reply (bytes and their content type).
    response text not null default 'json' check (response in ('json', 'file')),
    -- primary, replica (shared data a replica may answer) or `replica when NAME=VALUE` (a query
    -- parameter with that value sends it to the replica, e.g. the global board).
    reads text not null default 'primary' check (reads ~ '^(primary|replica|replica when [a-z_]+=[a-z_]+)$'),
    -- controlled: the release controls hold it (426 below the minimum version, 503 in
    -- maintenance); always: what must work whatever the app's version (Route.swift, Admission).
    admission text not null default 'controlled' check (admission in ('controlled', 'always')),
    -- The answer holds item or tip text in the negotiated language (docs/languages.md).
    localized boolean not null default false,
    -- The problem codes the function (and what it calls) may answer, each a row of api.problems
    -- (the trigger below refuses another).
    -- The codes every route of its kind may answer (401 for bearer, 426 for controlled, the
    -- body's form, ...) are the generator's to add: generic_codes in scripts/lib/endpoints.py.
    errors text[] not null default '{}',
    -- Schemas of path parameters that are not uuids, by name (OpenAPI schema objects), and an
    -- optional description: {"kind": {"schema": {...}, "description": "..."}}.
    parameters jsonb not null default '{}' check (jsonb_typeof(parameters) = 'object'),
    primary key (method, path)
);
comment on table api.endpoints is
    'One row per HTTP endpoint, written beside its function in sql/api: the source of the route table and of '
    'docs/openapi.json''s paths, security, path parameters and problem answers (scripts/lint --update).';
-- A code an endpoint names is a registered one: a misspelt code fails the migrate, as a misspelt
-- function does.
create function api.endpoints_codes_registered() returns trigger
    language plpgsql
    set search_path = public, pg_temp
as $$
declare
    v_unknown text[] := array(select c from unnest(new.errors) c
                              where not exists (select from api.problems p where p.code = c));
begin
    if cardinality(v_unknown) > 0 then
        raise exception '% %: % not in api.problems', new.method, new.path, array_to_string(v_unknown, ', ')
            using hint = 'add the code to sql/api/000_problems.sql', errcode = 'foreign_key_violation';
    end if;
    return new;
end
$$;
create trigger endpoints_codes_registered before insert or update of errors on api.endpoints
    for each row execute function api.endpoints_codes_registered();

-- Declarations, not data about anyone (docs/privacy.md's catalogue reads these lines).
do $$
declare
    v_column text;
begin
    foreach v_column in array array['method', 'path', 'operation_id', 'access', 'body', 'response', 'reads', 'admission',
                                    'errors', 'parameters'] loop
        execute format('comment on column api.endpoints.%I is %L', v_column,
                       'personal: no (an endpoint''s declaration); on erasure: kept (code, made again by every migrate)');
    end loop;
end
$$;
