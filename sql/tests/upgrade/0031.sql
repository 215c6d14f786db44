-- Data after 0031: a seasonal window on the upgrade item, a sale of it, and a purchase at the
-- sale's price whose ledger row names the sale.
update app.shop_items set available_from = '2026-12-01 00:00:00+00', available_until = '2027-01-07 00:00:00+00'
where id = '33333333-3333-4333-8333-333333333333';
insert into app.shop_sales (item_id, price, starts_at, ends_at)
values ('33333333-3333-4333-8333-333333333333', 4, '2026-12-20 00:00:00+00', '2027-01-01 00:00:00+00');
insert into app.coin_ledger (user_id, entry, amount, reason, item_id, sale_id)
values ('22222222-2222-4222-8222-222222222222', 'grant', 4, 'upgrade data', null, null);
insert into app.user_items (user_id, item_id, acquired_at)
values ('22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333', '2026-12-21 10:00:00+00');
insert into app.coin_ledger (user_id, entry, amount, reason, item_id, sale_id)
select '22222222-2222-4222-8222-222222222222', 'spend', -s.price, 'purchase', s.item_id, s.id
from app.shop_sales s where s.item_id = '33333333-3333-4333-8333-333333333333';
