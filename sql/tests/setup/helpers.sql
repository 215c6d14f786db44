-- Test helpers, loaded once into the throwaway test database (never into a real one).
create extension if not exists pgtap;
create schema if not exists test;

-- 'ok', or the error as '<SQLSTATE> <code>' for our PTnnn errors (code = DETAIL, the stable
-- name clients see), or just '<SQLSTATE>' for PostgreSQL's own.
create or replace function test.error_of(statement text)
returns text
language plpgsql
as $$
declare
    v_state text;
    v_detail text;
begin
    execute statement;
    return 'ok';
exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_detail = pg_exception_detail;
    return case when v_state like 'PT%' then v_state || ' ' || v_detail else v_state end;
end
$$;

-- Registers a user (at bcrypt cost 4, for speed) and returns {user, token, expires_at}.
create or replace function test.new_user(email text, display_name text default 'Tester')
returns jsonb
language plpgsql
as $$
begin
    update app.auth_settings set bcrypt_cost = 4;
    return (api.register(null, '{}', jsonb_build_object('email', email, 'password', 'correct horse',
                                                        'display_name', display_name))).body;
end
$$;

-- The user id a token belongs to.
create or replace function test.user_id(account jsonb)
returns uuid
language sql
as $$ select (account -> 'user' ->> 'id')::uuid $$;

-- Runs a statement as another role: 'ok' or its SQLSTATE (42501 = insufficient_privilege).
-- pgTAP itself lives in schema public, which the login roles cannot use, so the assertion is
-- made after switching back.
create or replace function test.error_as(role name, statement text)
returns text
language plpgsql
as $$
declare
    v_state text := 'ok';
begin
    execute format('set local role %I', role);
    begin
        execute statement;
    exception when others then
        get stacked diagnostics v_state = returned_sqlstate;
    end;
    reset role;
    return v_state;
end
$$;
