-- The coin economy and the shop.

create view report.coin_economy_per_day as
select d.day, d.earned, d.spent, d.granted,
       sum(d.earned - d.spent + d.granted) over (order by d.day) as outstanding_end_of_day
from (select l.day,
             sum(l.earned)::bigint as earned,
             sum(l.spent)::bigint as spent,
             sum(l.granted)::bigint as granted
      from app.ledger_day_totals l
      group by l.day
      having sum(l.entries) > 0) d;
comment on view report.coin_economy_per_day is
    'One row per UTC day with ledger activity: coins earned, spent and granted that day, and the '
    'coins outstanding (all balances together) at the end of it. Reads app.ledger_day_totals '
    '(8 rows a day, kept by trigger): the running total reads every day''s rows, not the ledger.';

create view report.sales_per_item as
select i.id as item_id, i.kind, i.name, i.price, i.active,
       coalesce(sum(c.sales), 0)::bigint as sales,
       coalesce(-sum(c.coins), 0)::bigint as coins,
       count(distinct c.user_id) as buyers,
       (select count(*) from app.user_items o where o.item_id = i.id) as owners
from app.shop_items i
left join (select l.item_id, l.user_id, 1::bigint as sales, l.amount::bigint as coins
           from app.coin_ledger l where l.entry = 'spend'
           union all
           select a.item_id, a.user_id, a.entries, a.coins
           from app.coin_ledger_archive_totals a where a.entry = 'spend') c on c.item_id = i.id
group by i.id;
comment on view report.sales_per_item is
    'One row per shop item: paid sales, coins taken, distinct buyers, and owners (free starters '
    'are owned without a sale). Aggregates the ledger''s spend rows, live and archived (per person and '
    'item in app.coin_ledger_archive_totals); the catalog is small.';
