-- Data present when 0003 arrives: an item, coins, a purchase, a selection.
insert into app.shop_items (id, kind, name, description, price, image)
values ('33333333-3333-4333-8333-333333333333', 'pet', 'Early Bird', 'From before focus sessions.', 5, 'pet/early.png');
select app.grant_coins('11111111-1111-4111-8111-111111111111', 20, 'upgrade check');
insert into app.user_items (user_id, item_id) values ('11111111-1111-4111-8111-111111111111', '33333333-3333-4333-8333-333333333333');
insert into app.coin_ledger (user_id, entry, amount, reason, item_id)
values ('11111111-1111-4111-8111-111111111111', 'spend', -5, 'purchase', '33333333-3333-4333-8333-333333333333');
insert into app.user_selections (user_id, kind, item_id)
values ('11111111-1111-4111-8111-111111111111', 'pet', '33333333-3333-4333-8333-333333333333');
