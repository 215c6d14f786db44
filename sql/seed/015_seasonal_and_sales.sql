-- The winter season: a seasonal piece of furniture in the shop from 1 December 2026 to
-- 7 January 2027 (UTC), and the Telescope on sale at 300 coins (420 regular) from
-- 20 December 2026 to 1 January 2027. Fixed times, so every environment has the same season and
-- re-running changes nothing (the catalog version stays put). Its Spanish is in 030_spanish.sql.
-- Seasons and sales a DBA adds later: docs/shop.md.
insert into app.shop_items as i (id, kind, name, description, price, image, sort_order, available_from, available_until)
values (md5('focus-island:item:furniture:snow-globe')::uuid, 'furniture', 'Snow Globe',
        'A tiny island under snow. Shake it between sessions.', 160, 'furniture/snow-globe.png', 110,
        '2026-12-01 00:00:00+00', '2027-01-07 00:00:00+00')
on conflict (id) do update
set name = excluded.name, description = excluded.description, price = excluded.price, image = excluded.image,
    sort_order = excluded.sort_order, available_from = excluded.available_from,
    available_until = excluded.available_until, active = true, updated_at = now()
where (i.name, i.description, i.price, i.image, i.sort_order, i.available_from, i.available_until, i.active)
      is distinct from
      (excluded.name, excluded.description, excluded.price, excluded.image, excluded.sort_order,
       excluded.available_from, excluded.available_until, true);

-- One sale per item at a time (an exclusion constraint): a sale a DBA already placed over
-- these days wins, and this one is not added.
insert into app.shop_sales (item_id, price, starts_at, ends_at)
select md5('focus-island:item:furniture:telescope')::uuid, 300, '2026-12-20 00:00:00+00', '2027-01-01 00:00:00+00'
where not exists (select from app.shop_sales s
                  where s.item_id = md5('focus-island:item:furniture:telescope')::uuid
                    and s.starts_at = '2026-12-20 00:00:00+00' and s.ends_at = '2027-01-01 00:00:00+00')
on conflict do nothing;
