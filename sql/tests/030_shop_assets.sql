-- Item answers carry absolute URLs built from what the server published (api.assets_publish);
-- the catalog's version moves only when a URL changes.
-- clock: any
begin;
select plan(5);
select api.assets_publish('https://cdn.example.com/a/', '{"pet/sprout.png": "pet/sprout.0123456789abcdef.png"}');
select is((select p ->> 'image_url' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'pets') p where p ->> 'name' = 'Sprout'),
          'https://cdn.example.com/a/pet/sprout.0123456789abcdef.png', 'image_url is the base URL and the hashed name');
select is((select p ->> 'sound_url' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'sounds') p where p ->> 'name' = 'Soft Bell'),
          'https://cdn.example.com/a/sounds/soft-bell.m4a', 'a file not published keeps its key');
create temporary table v on commit drop as select version from app.catalog_version;
select api.assets_publish('https://cdn.example.com/a/', '{"pet/sprout.png": "pet/sprout.0123456789abcdef.png"}');
select is((select version from app.catalog_version), (select version from v), 'publishing the same again changes no version (no ETag change)');
select api.assets_publish('https://cdn.example.com/b/', '{"pet/sprout.png": "pet/sprout.0123456789abcdef.png"}');
select is((select version from app.catalog_version), (select version + 1 from v), 'a new base URL is a new catalog version');
select is((api.shop_items_list(null, '{}', '{}')).etag, 'catalog-' || (select version from app.catalog_version) || '-en',
          'so the catalog''s ETag changes with the URLs');

select * from finish();
rollback;
