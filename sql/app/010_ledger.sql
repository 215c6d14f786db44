-- The ledger's machinery: the balance moved by each ledger row, the append-only guard, the
-- catalog's version bump, and the support tool that grants coins. Bound in 0002_shop.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

create or replace function app.bump_catalog_version()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.catalog_version set version = version + 1, changed_at = now();
    return null;
end
$$;

-- Every ledger row moves the cached balance in the same transaction; the balance CHECK then
-- refuses any spend the user cannot afford, whatever function wrote it.
create or replace function app.apply_ledger_entry()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    update app.users set balance = balance + new.amount where id = new.user_id;
    return null;
end
$$;

create or replace function app.forbid_change()
returns trigger
language plpgsql
as $$
begin
    raise exception '% is append-only', tg_table_name using errcode = 'restrict_violation';
end
$$;

-- Support and tests: grant (or, with a negative amount, take back) coins with a reason.
-- Returns the new balance; taking back more than the balance fails on the balance CHECK.
create or replace function app.grant_coins(user_id uuid, coins integer, reason text)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_balance integer;
begin
    insert into app.coin_ledger (user_id, entry, amount, reason)
    values (grant_coins.user_id, 'grant', grant_coins.coins, grant_coins.reason);
    select u.balance into v_balance from app.users u where u.id = grant_coins.user_id;
    return v_balance;
end
$$;
comment on function app.grant_coins(uuid, integer, text) is
    'Support tool: adds a grant to the ledger (balance follows); not reachable over HTTP.';
