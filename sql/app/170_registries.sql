-- The registries (docs/operations.md, "Registries", 2026-12-06): app.event_types,
-- app.ledger_entries and app.mail_kinds hold the values a column may take, one row a value with
-- what it means. The column's guard is a CHECK written from the rows, by these functions, whenever
-- a registry changes (a statement trigger on each): a new value is one row in one migration.
-- The guards stay CHECKs, not foreign keys, because a check costs an insert less (measured there:
-- a foreign key is a query and a row lock on the registry per inserted row).
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Writes the check `conname` of `target` (a domain, or a table: then also its partitions) from
-- `keys` when the values it names differ from them: dropped and added again NOT VALID, so no row
-- is read (a table's ACCESS EXCLUSIVE, and its partitions', is held until the caller commits).
-- Not validated, and need not be: a registry's rows are never deleted nor their keys changed
-- (app.forbid_change), so the new list holds the old one, and every row the old check passed
-- passes the new. The check is `value in (…)` on a domain, `<col> in (…)` on a table, and
-- `(<null_when> is null) = (<col> in (…))` with null_when (the events' broadcast check).
-- True when it wrote the check; 22023 for no keys (a check needs one) or no such target.
create or replace function app.registry_check(target text, conname name, col name, keys text[], null_when name default null)
returns boolean
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
    v_domain regtype := (select t.oid::regtype from pg_type t where t.oid = to_regtype(target) and t.typtype = 'd');
    v_table regclass := case when v_domain is null then to_regclass(target) end;
    v_def text;
    v_named text[];
    v_keys text[] := array(select k from unnest(keys) k order by k);
    v_list text := (select string_agg(quote_literal(k), ', ' order by k) from unnest(keys) k);
begin
    if v_domain is null and v_table is null then
        raise exception 'no domain or table %', target using errcode = 'invalid_parameter_value';
    end if;
    if cardinality(v_keys) = 0 then
        raise exception 'no value for the check % of %', conname, target using errcode = 'invalid_parameter_value';
    end if;
    -- One writer of the checks at a time (app.registry_guards_refresh takes it first).
    perform pg_advisory_xact_lock(hashtext('app.registry_guards_refresh'));
    select pg_get_constraintdef(c.oid) into v_def
    from pg_constraint c
    where c.conname = registry_check.conname
      and (c.contypid = v_domain or c.conrelid = v_table);
    -- The values the check names: its quoted literals (a registry key holds no quote).
    v_named := array(select m[1] from regexp_matches(coalesce(v_def, ''), $re$'([^']*)'::text$re$, 'g') m order by m[1]);
    if v_named = v_keys then
        return false;
    end if;
    -- v_list is quote_literal's, the names %I's.
    perform 'PRAGMA:disable:security_warnings';
    if v_domain is not null then
        execute format('alter domain %s drop constraint if exists %I', v_domain, conname);
        execute format('alter domain %s add constraint %I check (value in (%s)) not valid', v_domain, conname, v_list);
    elsif null_when is null then
        execute format('alter table %s drop constraint if exists %I, add constraint %I check (%I in (%s)) not valid',
                       v_table, conname, conname, col, v_list);
    else
        execute format('alter table %s drop constraint if exists %I, add constraint %I check ((%I is null) = (%I in (%s))) not valid',
                       v_table, conname, conname, null_when, col, v_list);
    end if;
    perform 'PRAGMA:enable:security_warnings';
    return true;
end
$$;
comment on function app.registry_check(text, name, name, text[], name) is
    'Writes a registry''s check (on a domain or a table) from its keys when the values it names differ: dropped and '
    'added NOT VALID (no scan; a registry only grows). True when it wrote it.';

-- Every guard a registry writes, each from its rows; returns how many it wrote again (0 when
-- all named their registry's values already). Adding a non-broadcast event type writes the
-- domain's check only: no lock on app.events. Two transactions that change registries at once
-- write the checks one after the other (an advisory lock, taken before the rows are read), so
-- the second reads the first's rows and neither check loses a value.
create or replace function app.registry_guards_refresh()
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
begin
    perform pg_advisory_xact_lock(hashtext('app.registry_guards_refresh'));
    return app.registry_check('app.event_type', 'event_type_check', 'value', array(select t.type from app.event_types t))::integer
         + app.registry_check('app.events', 'events_check', 'type', array(select t.type from app.event_types t where t.broadcast),
                              null_when => 'user_id')::integer
         + app.registry_check('app.coin_ledger', 'coin_ledger_entry_check', 'entry',
                              array(select e.entry from app.ledger_entries e))::integer
         + app.registry_check('app.coin_ledger_archive_totals', 'coin_ledger_archive_totals_entry_check', 'entry',
                              array(select e.entry from app.ledger_entries e))::integer
         + app.registry_check('app.outgoing_mail', 'outgoing_mail_kind_check', 'kind', array(select k.kind from app.mail_kinds k))::integer;
end
$$;
comment on function app.registry_guards_refresh() is
    'Writes every registry''s check from its rows where they differ (app.registry_check): event types, broadcast '
    'types, ledger entries, mail kinds. Called by the registries'' statement triggers; returns how many it wrote.';

-- The registries' statement trigger: their guards follow their rows in the same transaction.
create or replace function app.registry_changed()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.registry_guards_refresh();
    return null;
end
$$;
comment on function app.registry_changed() is
    'Trigger (after each statement on a registry): app.registry_guards_refresh, so a guard follows its registry''s rows.';
