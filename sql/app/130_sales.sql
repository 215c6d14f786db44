-- Seasonal items and sales: the price of an item at a moment, and the moments the catalog
-- changes by the clock alone (a window's start or end). The live definitions: loaded on every
-- migrate (create or replace), see sql/app/README.md. Tables: 0031_seasonal_items_and_sales.sql.
-- PL/pgSQL, not SQL: a migrate step before 0031 loads this folder with bodies checked, and a
-- SQL body naming app.shop_sales would fail there.

-- An item's offer at a moment: one row while it is in the shop then (active, inside its
-- window [available_from, available_until)), none otherwise. price is what a purchase at that
-- moment pays: the sale's price inside a sale [starts_at, ends_at), else the item's own
-- (regular_price); sale_id and sale_ends_at name the sale, null without one.
create or replace function app.item_price_at(item_id uuid, at timestamptz)
returns table (price integer, regular_price integer, sale_id bigint, sale_ends_at timestamptz)
language plpgsql stable
set search_path = public, pg_temp
as $$
begin
    return query
    select coalesce(s.price, i.price), i.price, s.id, s.ends_at
    from app.shop_items i
    left join app.shop_sales s on s.item_id = i.id and tstzrange(s.starts_at, s.ends_at) @> item_price_at.at
    where i.id = item_price_at.item_id and i.active
      and (i.available_from is null or i.available_from <= item_price_at.at)
      and (i.available_until is null or item_price_at.at < i.available_until);
end
$$;

-- Every moment at which the catalog changes by the clock alone: each window's and each sale's
-- start and end.
create or replace function app.catalog_boundaries()
returns table (at timestamptz)
language plpgsql stable
set search_path = public, pg_temp
as $$
begin
    return query
    select b.at
    from app.shop_items i
    cross join lateral (values (i.available_from), (i.available_until)) as b(at)
    where b.at is not null
    union all
    select b.at
    from app.shop_sales s
    cross join lateral (values (s.starts_at), (s.ends_at)) as b(at);
end
$$;

-- The latest boundary in (after, upto], or null: the clock changed the catalog in that span.
create or replace function app.catalog_boundary_between(after timestamptz, upto timestamptz)
returns timestamptz
language plpgsql stable
set search_path = public, pg_temp
as $$
begin
    return (select max(b.at) from app.catalog_boundaries() b
            where b.at > catalog_boundary_between.after and b.at <= catalog_boundary_between.upto);
end
$$;

-- The first boundary after a moment, or null: when the catalog next changes by the clock.
create or replace function app.catalog_next_boundary(after timestamptz)
returns timestamptz
language plpgsql stable
set search_path = public, pg_temp
as $$
begin
    return (select min(b.at) from app.catalog_boundaries() b where b.at > catalog_next_boundary.after);
end
$$;
