-- ETags of the caller's own answers (GET /me, /me/stats, /me/items, /leaderboards/{period}):
-- a digest of the answer's bytes, the same while nothing changes, another after a purchase.
begin;
select plan(10);
select test.new_user('shopper');
select test.new_user('pal');
insert into app.coin_ledger (user_id, entry, amount, reason) values (test.uid('shopper'), 'grant', 500, 'test');

create temporary table tags on commit drop as
select (api.me_get(test.token('shopper'), '{}', '{}')).etag as me,
       (api.me_items_list(test.token('shopper'), '{}', '{}')).etag as items,
       (api.me_stats_get(test.token('shopper'), '{}', '{}')).etag as stats,
       (api.leaderboards_get(test.token('shopper'), '{"period": "daily"}', '{}')).etag as board;

select is((api.me_get(test.token('shopper'), '{}', '{}')).etag, md5((api.me_get(test.token('shopper'), '{}', '{}')).body::text),
          'the ETag of /me is the md5 of its body');
select is((api.me_get(test.token('shopper'), '{}', '{}')).etag, (select me from tags), '/me: the same while nothing changed');
select is((api.me_items_list(test.token('shopper'), '{}', '{}')).etag, (select items from tags), '/me/items: the same');
select is((api.me_stats_get(test.token('shopper'), '{}', '{}')).etag, (select stats from tags), '/me/stats: the same');
select is((api.leaderboards_get(test.token('shopper'), '{"period": "daily"}', '{}')).etag, (select board from tags), 'a board: the same');

select api.shop_purchases_create(test.token('shopper'), '{}', jsonb_build_object('item_id', test.item('Pip the Fox')));
select isnt((api.me_get(test.token('shopper'), '{}', '{}')).etag, (select me from tags), 'a purchase changes the ETag of /me');
select isnt((api.me_items_list(test.token('shopper'), '{}', '{}')).etag, (select items from tags), '... and of /me/items');

select test.session('shopper', test.day_start(), 25);
select isnt((api.me_stats_get(test.token('shopper'), '{}', '{}')).etag, (select stats from tags), 'a session changes the ETag of /me/stats');
select isnt((api.leaderboards_get(test.token('shopper'), '{"period": "daily"}', '{}')).etag, (select board from tags),
            '... and of the daily board');
select api.use_language('{"language": "es"}');
create temporary table spanish on commit drop as select (api.me_items_list(test.token('shopper'), '{}', '{}')).etag;
select api.use_language('{"language": "en"}');
select isnt((api.me_items_list(test.token('shopper'), '{}', '{}')).etag, (select etag from spanish),
            'the same items in another language have another ETag');

select * from finish();
rollback;
