-- Test helpers, loaded once into the throwaway test database (never into a real one) by
-- scripts/test, as superuser, before pg_prove runs. Re-runnable: create or replace, if not exists.
--
-- Where a test lives: sql/tests/NNN_<file>[_<part>].sql tests sql/api/NNN_<file>.sql, so
-- sql/api/050_focus_sessions.sql is tested by sql/tests/050_focus_sessions.sql and
-- sql/api/010_accounts.sql by 010_accounts_ready.sql, _register, _login and _tokens. Tests call
-- each api function by its literal name (grep -rn api.friend_requests_accept sql/tests finds its tests).
-- Two files test no single api file: 000_structure.sql (the rules 000_core.sql states for every
-- api function: SECURITY DEFINER, fixed search_path, grants) and report_and_roles.sql
-- (sql/report and what each login role can reach).
--
-- Time: each test file is one transaction, so now() is one instant for the whole file even
-- when the clock passes midnight during it. A fixture whose assertion depends on the UTC day
-- or ISO week a time falls in is built from test.day_start() and test.week_start(), never
-- from "now() minus N hours", which lands on another day depending on when the suite runs.
-- The suite must pass at any clock: just after midnight, on a Monday, mid-afternoon.
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

-- Like test.error_of, for a statement `select api.<endpoint>(...)`, also naming a problem the
-- endpoint answered without raising (so that what it recorded stays: login failures, wrong
-- reset codes, friend-request attempts) as 'PT<status> <code>'.
create or replace function test.answer_of(statement text)
returns text
language plpgsql
as $$
declare
    v_reply api.reply;
    v_state text;
    v_detail text;
begin
    execute 'select (r).* from (' || answer_of.statement || ') as t(r)' into v_reply;
    return case when v_reply.code is null then 'ok' else 'PT' || v_reply.status || ' ' || v_reply.code end;
exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_detail = pg_exception_detail;
    return case when v_state like 'PT%' then v_state || ' ' || v_detail else v_state end;
end
$$;

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

-- The accounts a test file made, by a short name ('ann'). Rows are written inside the file's
-- transaction and rolled back with it, so every file starts with none.
create table if not exists test.accounts (
    name     text primary key,
    account  jsonb not null  -- what api.auth_register answered: {user, token, expires_at}
);

-- Registers <name>@example.com (password 'correct horse', display name initcap(name) unless
-- given) at bcrypt cost 4 for speed, with its email verified (as the mailed code would) and made
-- a year ago (app.users.created_at): an established account, which may send gifts (their
-- minimum age) and record sessions of any day a test builds (none starts before its account);
-- remembers it under `name`, and returns {user, token, expires_at}. A test about a new or
-- unverified account says so itself (test.made_ago, an update of email_verified_at).
create or replace function test.new_user(name text, display_name text default null)
returns jsonb
language plpgsql
as $$
declare
    v_account jsonb;
begin
    update app.auth_settings set bcrypt_cost = 4;
    v_account := (api.auth_register(null, '{}', jsonb_build_object(
        'email', new_user.name || '@example.com', 'password', 'correct horse',
        'display_name', coalesce(new_user.display_name, initcap(new_user.name))))).body;
    update app.users u set email_verified_at = now(), created_at = now() - interval '1 year'
    where u.id = (v_account -> 'user' ->> 'id')::uuid;
    v_account := jsonb_set(v_account, '{user,email_verified}', 'true');
    insert into test.accounts (name, account) values (new_user.name, v_account);
    return v_account;
end
$$;

-- The code in the newest sign-up code mail to an address, from the outbox's params (what the
-- mailer sends); null when none was mailed.
create or replace function test.signup_code(address text)
returns text
language sql stable
as $$
    select m.params ->> 'code' from app.outgoing_mail m
    where m.recipient = signup_code.address and m.kind = 'signup_code' order by m.id desc limit 1
$$;

-- A password reset asked for the email, and the code of the newest reset mail to it after the
-- mailer's step (api.auth_password_reset_create, app.send_password_resets); null: none mailed.
create or replace function test.reset_code(email text)
returns text
language plpgsql
as $$
begin
    perform api.auth_password_reset_create(null, '{}', jsonb_build_object('email', reset_code.email));
    perform app.send_password_resets();
    return (select substring(m.body from 'Your code is (\d{8})') from app.outgoing_mail m
            where m.recipient = reset_code.email and m.subject ~ 'password reset' order by m.id desc limit 1);
end
$$;

-- The same for an account deletion asked for on the web page (api.account_deletion_create,
-- app.send_deletion_codes): the code of the newest deletion mail to the email.
create or replace function test.deletion_code(email text)
returns text
language plpgsql
as $$
begin
    perform api.account_deletion_create(null, '{}', jsonb_build_object('email', deletion_code.email));
    perform app.send_deletion_codes();
    return (select substring(m.body from 'Your code is (\d{8})') from app.outgoing_mail m
            where m.recipient = deletion_code.email and m.subject ~ 'deletion code' order by m.id desc limit 1);
end
$$;

-- The account made by test.new_user(name); an unknown name is an error, not a silent null.
create or replace function test.account(name text)
returns jsonb
language plpgsql stable
as $$
declare
    v_account jsonb;
begin
    select a.account into v_account from test.accounts a where a.name = account.name;
    if v_account is null then
        raise exception 'test.account: no account named % in this test file', account.name;
    end if;
    return v_account;
end
$$;

-- The bearer token and the user id of the account made by test.new_user(name).
create or replace function test.token(name text)
returns text
language sql stable
as $$ select test.account(token.name) ->> 'token' $$;

create or replace function test.uid(name text)
returns uuid
language sql stable
as $$ select (test.account(uid.name) -> 'user' ->> 'id')::uuid $$;

-- The account made by test.new_user(name) as made `age` before now() (app.users.created_at);
-- returns when that is.
create or replace function test.made_ago(name text, age interval)
returns timestamptz
language sql
as $$ update app.users u set created_at = now() - made_ago.age where u.id = test.uid(made_ago.name) returning u.created_at $$;

-- A shop item's id by its name in sql/seed/010_shop_items.sql ('Pip the Fox'); unknown is an error.
create or replace function test.item(name text)
returns uuid
language plpgsql stable
as $$
declare
    v_id uuid;
begin
    select i.id into v_id from app.shop_items i where i.name = item.name;
    if v_id is null then
        raise exception 'test.item: no shop item named %', item.name;
    end if;
    return v_id;
end
$$;

-- Calendar: the start of the UTC day `days_ago` days before today, and of the ISO week
-- (Monday) `weeks_ago` weeks before this one, from the database's now(). The arithmetic is
-- done on UTC wall-clock time so the session's TimeZone setting cannot move a boundary.
-- A session that counts for today can end at test.day_start() (at 00:00:03 today is only
-- three seconds old, and sessions may not end in the future).
create or replace function test.day_start(days_ago integer default 0)
returns timestamptz
language sql stable
as $$ select (date_trunc('day', now() at time zone 'UTC') - make_interval(days => day_start.days_ago)) at time zone 'UTC' $$;

-- The same in a user's time zone: the start of the day `days_ago` days before today as a
-- clock in `time_zone` reads it (Pacific/Kiritimati is UTC+14, Pacific/Pago_Pago UTC-11).
create or replace function test.local_day_start(time_zone text, days_ago integer default 0)
returns timestamptz
language sql stable
as $$ select (date_trunc('day', now() at time zone local_day_start.time_zone)
              - make_interval(days => local_day_start.days_ago)) at time zone local_day_start.time_zone $$;

create or replace function test.week_start(weeks_ago integer default 0)
returns timestamptz
language sql stable
as $$ select (date_trunc('week', now() at time zone 'UTC') - make_interval(weeks => week_start.weeks_ago)) at time zone 'UTC' $$;

-- A finished session of `minutes` minutes ending at `ends_at`, written straight into
-- app.focus_sessions (no coins, none of record_session's checks): for tests about what is
-- computed from sessions (stats, leaderboards, friends' minutes, ratings). Returns its id.
create or replace function test.session(name text, ends_at timestamptz, minutes integer,
                                        id uuid default gen_random_uuid())
returns uuid
language sql
as $$
    insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
    values (session.id, test.uid(session.name), 'offline', session.ends_at - make_interval(mins => session.minutes),
            session.ends_at, tstzrange(session.ends_at - make_interval(mins => session.minutes), session.ends_at),
            session.minutes)
    returning focus_sessions.id
$$;

-- The events this test file's transaction wrote since the previous call, one line each,
-- sorted: '<recipient> <type>[ <who>][ <balance>]', the recipient and `data.user_id` by their
-- test account names ('*' for everyone). Events of this transaction are those created at its
-- now(); the mark (rolled back with the file) remembers what was already returned.
create table if not exists test.event_mark (id bigint not null);
create or replace function test.new_events()
returns text[]
language plpgsql
as $$
declare
    v_mark bigint := coalesce((select max(m.id) from test.event_mark m), 0);
    v_lines text[];
begin
    select coalesce(array_agg(line order by line), '{}'), coalesce(max(id), v_mark)
    into v_lines, v_mark
    from (select e.id,
                 coalesce(r.name, case when e.user_id is null then '*' else e.user_id::text end) || ' ' || e.type
                 || coalesce(' ' || coalesce(w.name, e.payload ->> 'user_id'), '')
                 || coalesce(' ' || (e.payload ->> 'balance'), '') as line
          from app.events e
          left join test.accounts r on (r.account -> 'user' ->> 'id')::uuid = e.user_id
          left join test.accounts w on w.account -> 'user' ->> 'id' = e.payload ->> 'user_id'
          where e.created_at = now() and e.id > v_mark) lines;
    insert into test.event_mark (id) values (v_mark);
    return v_lines;
end
$$;

-- The plan of a query as one text, for plan checks: plain `explain`, or with `options`
-- (for example 'analyze, costs off, timing off, summary off') to see the rows a node read.
create or replace function test.plan_of(query text, options text default null)
returns text
language plpgsql
as $$
declare
    v_line text;
    v_plan text := '';
begin
    for v_line in execute 'explain ' || coalesce('(' || options || ') ', '') || query loop
        v_plan := v_plan || v_line || E'\n';
    end loop;
    return v_plan;
end
$$;

-- Every column of every table (ordinary, partitioned, materialized) in every schema but the
-- system's and this test schema (whose bookkeeping keeps what test.new_user answered) that holds
-- one of `needles`, as schema.table.column. Found from the catalog, so a new table or column is
-- scanned without being named: text-like, json and network columns by their text (any letter
-- case), bytea by its bytes, anything else (arrays, composites, a new type) by its text too.
create or replace function test.columns_holding(needles text[])
returns text[]
language plpgsql
as $$
declare
    v_column record;
    v_found boolean;
    v_hits text[] := '{}';
begin
    for v_column in
        select n.nspname, c.relname, a.attname,
               coalesce(nullif(t.typbasetype, 0), t.oid) = 'bytea'::regtype as is_bytea
        from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        join pg_type t on t.oid = a.atttypid
        where c.relkind in ('r', 'p', 'm') and n.nspname not in ('pg_catalog', 'information_schema', 'test')
          and n.nspname !~ '^pg_(toast|temp_)'
        order by 1, 2, 3
    loop
        execute format(case when v_column.is_bytea
                            then 'select exists (select from %I.%I r, unnest($1) x where position(convert_to(x, ''UTF8'') in r.%I) > 0)'
                            else 'select exists (select from %I.%I r, unnest($1) x where strpos(lower(r.%I::text), lower(x)) > 0)' end,
                       v_column.nspname, v_column.relname, v_column.attname)
        into v_found using columns_holding.needles;
        if v_found then
            v_hits := v_hits || (v_column.nspname || '.' || v_column.relname || '.' || v_column.attname);
        end if;
    end loop;
    return v_hits;
end
$$;

-- Waits (at most a minute) until no transaction older than the event `id`'s may still write
-- below it (app.events_horizon() has passed it). Every running pgTAP file holds the horizon,
-- so the files calling this run one after the other in one stream (scripts/lib/pgtap.sh).
create or replace function test.horizon_passes(id bigint)
returns boolean
language plpgsql
as $$
begin
    for i in 1..600 loop
        if app.events_horizon() > id then return true; end if;
        perform pg_sleep(0.1);
    end loop;
    return false;
end
$$;

-- The connection string of another session of this database as this role, for files that
-- write from a second session with dblink (commit order, lock order): the socket and port of
-- the cluster the test runs on.
create or replace function test.dblink_conninfo()
returns text
language sql
as $$
    select format('dbname=%s host=%s port=%s user=%s', current_database(),
                  split_part(current_setting('unix_socket_directories'), ',', 1), current_setting('port'), current_user)
$$;
