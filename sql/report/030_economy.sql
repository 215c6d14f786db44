-- The coin economy and the shop.

create view report.coin_economy_per_day as
select d.day, d.earned, d.spent, d.granted,
       sum(d.earned - d.spent + d.granted) over (order by d.day) as outstanding_end_of_day
from (select (c.created_at at time zone 'UTC')::date as day,
             coalesce(sum(c.amount) filter (where c.entry = 'earn'), 0) as earned,
             coalesce(-sum(c.amount) filter (where c.entry = 'spend'), 0) as spent,
             coalesce(sum(c.amount) filter (where c.entry = 'grant'), 0) as granted
      from app.coin_ledger c
      group by 1) d;
comment on view report.coin_economy_per_day is
    'One row per UTC day with ledger activity: coins earned, spent and granted that day, and the '
    'coins outstanding (all balances together) at the end of it. The running total needs every '
    'earlier day, so it reads the whole ledger (ordered by the coin_ledger_time index).';

create view report.sales_per_item as
select i.id as item_id, i.kind, i.name, i.price, i.active,
       count(c.id) as sales,
       coalesce(-sum(c.amount), 0) as coins,
       count(distinct c.user_id) as buyers,
       (select count(*) from app.user_items o where o.item_id = i.id) as owners
from app.shop_items i
left join app.coin_ledger c on c.item_id = i.id and c.entry = 'spend'
group by i.id;
comment on view report.sales_per_item is
    'One row per shop item: paid sales, coins taken, distinct buyers, and owners (free starters '
    'are owned without a sale). Aggregates spend rows of the ledger; the catalog is small.';
