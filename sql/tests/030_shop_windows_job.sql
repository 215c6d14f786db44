-- The catalog follows the clock: once a sale's or a seasonal window's start or end has passed,
-- the catalog's ETag differs at once (SQL answers at now()), and the job shop_windows moves the
-- catalog version and announces catalog.changed (every server's cache empties). The time since
-- the version last moved is simulated by moving its changed_at back.
begin;
select plan(10);
-- The seed's season and sales, moved a century away, so no boundary of theirs is near this clock.
update app.shop_sales set starts_at = starts_at - interval '100 years', ends_at = ends_at - interval '100 years';
update app.shop_items set available_from = available_from - interval '100 years', available_until = available_until - interval '100 years'
where available_from is not null or available_until is not null;
insert into app.shop_items (kind, name, description, price, image) values ('furniture', 'Window Probe', 'A probe.', 100, 'probe.png');
insert into app.shop_sales (item_id, price, starts_at, ends_at)
values (test.item('Window Probe'), 60, now() - interval '30 seconds', now() + interval '1 day');
update app.scheduled_jobs set next_run_at = now() + interval '1 hour';  -- only what this test makes due runs

create temporary table before on commit drop as
select v.version, (api.shop_items_list(null, '{}', '{}')).etag as etag from app.catalog_version v;
select is((select etag from before), 'catalog-' || (select version from before) || '-en', 'the version covers the sale just added');
select is(api.shop_windows_pass(), 0, 'nothing has passed since: the job changes nothing');

-- The version last moved a minute ago: the sale's start has passed since.
update app.catalog_version set changed_at = now() - interval '1 minute';
select is((api.shop_items_list(null, '{}', '{}')).etag,
          'catalog-' || (select version from before) || '.' || floor(extract(epoch from now() - interval '30 seconds'))::bigint || '-en',
          'a passed start the version does not cover yet is in the ETag');
select is(app.catalog_boundary_between(now() - interval '1 minute', now()), now() - interval '30 seconds',
          'the boundary passed is the sale''s start');
update app.scheduled_jobs set next_run_at = now() - interval '1 second' where name = 'shop_windows';
select is(api.jobs_run(), 1, 'the scheduler runs the due job shop_windows');
select is((select last_result || ' ' || coalesce(last_error, 'no error') from app.scheduled_jobs where name = 'shop_windows'), '1 no error',
          '... which moved the version');
select is((select v.version from app.catalog_version v), (select version from before) + 1, 'the catalog version moved by one');
select is((api.shop_items_list(null, '{}', '{}')).etag, 'catalog-' || (select version from before) + 1 || '-en',
          'the ETag is the new version''s');
select is((select e.payload from app.events e where e.type = 'catalog.changed' order by e.id desc limit 1),
          jsonb_build_object('version', (select version from before) + 1), 'catalog.changed announced the new version');
select is(api.shop_windows_pass(), 0, 'run again, nothing more has passed: no change');

select * from finish();
rollback;
