-- api shop: the catalog, catalog sync, purchases, inventory and selection.

-- The absolute URL of an asset key: app.asset_settings.base_url (ASSET_BASE_URL, published by
-- the server at start) joined to the file's content-hashed name (app.assets), so a changed
-- file gets a new URL and phones may cache every URL forever. Null until a server published.
create function api.asset_url(key text)
returns text
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select s.base_url || coalesce((select a.hashed_name from app.assets a where a.key = asset_url.key), asset_url.key)
        from app.asset_settings s);
end
$$;

-- Item = {id, kind, name, description, price, image, image_url, sort_order}
-- (+ sound and sound_url for sounds). image and sound are the bare keys; the URLs are absolute.
-- name and description are in the request's language (api.language()): its row of
-- app.shop_item_translations, else the item's own English.
create function api.item_json(item app.shop_items)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object('id', item.id, 'kind', item.kind, 'name', coalesce(t.name, item.name),
                                  'description', coalesce(t.description, item.description), 'price', item.price,
                                  'image', item.image, 'image_url', api.asset_url(item.image), 'sort_order', item.sort_order)
               || case when item.sound is not null
                       then jsonb_build_object('sound', item.sound, 'sound_url', api.asset_url(item.sound)) else '{}' end
        from (values (1)) as one (n)
        left join app.shop_item_translations t on t.item_id = item.id and t.language = api.language());
end
$$;

-- Not an endpoint: the server calls it at start with ASSET_BASE_URL (or its own /assets/) and
-- the content-hashed name of every file it serves ({"pet/sprout.png": "pet/sprout.3f2a9c1b.png"}).
-- The catalog's version (its ETag) moves only when a URL really changes.
create function api.assets_publish(base_url text, manifest jsonb)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_changed boolean := false;
    v_count integer;
begin
    update app.asset_settings s set base_url = assets_publish.base_url
    where s.base_url is distinct from assets_publish.base_url;
    get diagnostics v_count = row_count;
    v_changed := v_count > 0;
    delete from app.assets a where not (assets_publish.manifest ? a.key);
    get diagnostics v_count = row_count;
    v_changed := v_changed or v_count > 0;
    insert into app.assets as a (key, hashed_name)
    select m.key, m.value from jsonb_each_text(assets_publish.manifest) as m(key, value)
    on conflict (key) do update set hashed_name = excluded.hashed_name
    where a.hashed_name <> excluded.hashed_name;
    get diagnostics v_count = row_count;
    v_changed := v_changed or v_count > 0;
    if v_changed then  -- a new catalog version, announced like any catalog change (servers' caches empty)
        update app.catalog_version v set version = v.version + 1, changed_at = now();
        insert into app.events (user_id, type, payload)
        select null, 'catalog.changed', jsonb_build_object('version', v.version) from app.catalog_version v;
    end if;
end
$$;
grant execute on function api.assets_publish(text, jsonb) to focus_api;
comment on function api.assets_publish(text, jsonb) is
    'Not an endpoint: the server publishes ASSET_BASE_URL and its content-hashed asset names at start.';

-- known_ids of a sync body (or another field's): an array of UUID strings (400 invalid_field
-- otherwise), deduplicated.
create function api.known_ids(body jsonb, field text default 'known_ids')
returns uuid[]
language plpgsql volatile
as $$
declare
    v_ids jsonb := known_ids.body -> known_ids.field;
begin
    if v_ids is null or jsonb_typeof(v_ids) <> 'array' then
        perform api.fail_field(known_ids.field, 'must be an array of UUIDs.');
    end if;
    if exists (select from jsonb_array_elements(v_ids) as e(value)
               where jsonb_typeof(e.value) <> 'string'
                  or not api.is_uuid(e.value #>> '{}')) then
        perform api.fail_field(known_ids.field, 'must contain only UUID strings.');
    end if;
    return array(select distinct (e.value #>> '{}')::uuid from jsonb_array_elements(v_ids) as e(value));
end
$$;

-- A sync answer, for the catalog and the tips alike: {missing, removed}. `active` is every
-- active entry as JSON (each with its "id"), in the answer's order; `known` the phone's ids.
-- missing: the active entries the phone lacks; removed: its ids that are no longer active.
create function api.sync_difference(known uuid[], active jsonb)
returns jsonb
language sql immutable
as $$
    -- Anti-joins both ways (hashed), not `<> all (array)` per entry: 5,000 known ids took 140 ms.
    with entries as materialized (select a.entry, a.n, (a.entry ->> 'id')::uuid as id
                                  from jsonb_array_elements(sync_difference.active) with ordinality as a(entry, n))
    select jsonb_build_object(
        'missing', coalesce((select jsonb_agg(e.entry order by e.n) from entries e
                             where not exists (select from unnest(sync_difference.known) as k(id) where k.id = e.id)), '[]'),
        'removed', coalesce((select jsonb_agg(k.id order by k.id) from unnest(sync_difference.known) as k(id)
                             where not exists (select from entries e where e.id = k.id)), '[]'))
$$;

-- An item as offered at a moment: api.item_json with price the price a purchase then pays
-- (app.item_price_at: the sale's inside a sale), regular_price the item's own, sale_ends_at
-- (null without a sale) and available_until (null unless seasonal). Null when the item is not
-- in the shop at that moment.
create function api.offer_json(item app.shop_items, at timestamptz)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.item_json(offer_json.item)
               || jsonb_build_object('price', p.price, 'regular_price', p.regular_price, 'sale_ends_at', api.iso(p.sale_ends_at),
                                     'available_until', api.iso((offer_json.item).available_until))
        from app.item_price_at((offer_json.item).id, offer_json.at) p);
end
$$;

-- The catalog's ETag at now(): its version and language, and, once the clock passed a window's
-- start or end that the version does not cover yet (the job shop_windows has not run since),
-- that moment, so two different answers never share an ETag.
create function api.catalog_etag(version app.catalog_version)
returns text
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select 'catalog-' || (catalog_etag.version).version
               || coalesce('.' || floor(extract(epoch from app.catalog_boundary_between((catalog_etag.version).changed_at, now())))::bigint, '')
               || '-' || api.language());
end
$$;

-- GET /shop/items (public)
create function api.shop_items_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select api.ok(jsonb_build_object(
                   'version', v.version,
                   'changes_at', api.iso(app.catalog_next_boundary(now())),
                   'pets', coalesce(jsonb_agg(api.offer_json(i, now()) order by i.sort_order, i.name) filter (where i.kind = 'pet'), '[]'),
                   'sounds', coalesce(jsonb_agg(api.offer_json(i, now()) order by i.sort_order, i.name) filter (where i.kind = 'sound'), '[]'),
                   'furniture', coalesce(jsonb_agg(api.offer_json(i, now()) order by i.sort_order, i.name) filter (where i.kind = 'furniture'), '[]')),
               etag => api.catalog_etag(v))
        from app.catalog_version v
        left join app.shop_items i on i.active and exists (select from app.item_price_at(i.id, now()))
        group by v.singleton);
end
$$;
grant execute on function api.shop_items_list(text, jsonb, jsonb) to focus_api;
comment on function api.shop_items_list(text, jsonb, jsonb) is
    'GET /shop/items: the items in the shop now (seasonal ones inside their window) by kind, at their price now, in the '
    'request''s language; changes_at: the next window start or end. The ETag is the catalog version and the language '
    '(and a passed window boundary the version does not cover yet): it changes exactly when the answer does.';
insert into api.endpoints (method, path, function, access, reads, localized)
values ('GET', '/shop/items', 'api.shop_items_list', 'public', 'replica', true);

-- POST /sync/shop-items {known_ids} (public)
create function api.shop_items_sync(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_body jsonb := api.only_keys(shop_items_sync.body, array['known_ids']);
    v_known uuid[] := api.known_ids(v_body);
begin
    return api.ok(api.sync_difference(v_known, (select jsonb_agg(api.offer_json(i, now()) order by i.kind, i.sort_order)
                                                from app.shop_items i
                                                where i.active and exists (select from app.item_price_at(i.id, now()))))
                  || jsonb_build_object(
                         'sales', coalesce((select jsonb_agg(jsonb_build_object('item_id', i.id, 'price', p.price,
                                                                                'regular_price', p.regular_price,
                                                                                'ends_at', api.iso(p.sale_ends_at))
                                                             order by i.kind, i.sort_order)
                                            from app.shop_items i cross join lateral app.item_price_at(i.id, now()) p
                                            where p.sale_id is not null), '[]'),
                         'changes_at', api.iso(app.catalog_next_boundary(now()))));
end
$$;
grant execute on function api.shop_items_sync(text, jsonb, jsonb) to focus_api;
comment on function api.shop_items_sync(text, jsonb, jsonb) is
    'POST /sync/shop-items: items in the shop now that the phone lacks, the phone''s ids no longer in it, every sale '
    'running now (the price paid until ends_at), and changes_at: the next window start or end.';
insert into api.endpoints (method, path, function, access, body, body_limit, reads, localized, errors)
values ('POST', '/sync/shop-items', 'api.shop_items_sync', 'public', 'json', 1024 * 1024, 'replica', true,
        '{invalid_field}');

-- The scheduled job shop_windows (sql/api/140_jobs.sql, every minute): once the clock has passed a
-- seasonal window's or a sale's start or end since the catalog's version last moved, moves it
-- and announces catalog.changed, so every server's cache empties and phones refetch. Returns 1
-- when it moved the version, else 0.
create function api.shop_windows_pass()
returns integer
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_version bigint;
begin
    update app.catalog_version v set version = v.version + 1, changed_at = now()
    where app.catalog_boundary_between(v.changed_at, now()) is not null
    returning v.version into v_version;
    if v_version is null then
        return 0;
    end if;
    insert into app.events (user_id, type, payload) values (null, 'catalog.changed', jsonb_build_object('version', v_version));
    return 1;
end
$$;
comment on function api.shop_windows_pass() is
    'Not an endpoint: the job shop_windows; a new catalog version and catalog.changed once a seasonal window or a sale '
    'started or ended since the version last moved (1), else nothing (0).';

-- POST /shop/purchases {item_id}
create function api.shop_purchases_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(shop_purchases_create.token);
    v_body jsonb := api.only_keys(shop_purchases_create.body, array['item_id']);
    v_item_id uuid := api.uuid_field(v_body, 'item_id');
    v_balance integer;
    v_item app.shop_items;
    v_price integer;
    v_sale_id bigint;
    v_acquired_at timestamptz;
begin
    -- Lock the buyer: one purchase per user at a time, so balance and ownership checks hold.
    v_balance := (api.lock_user(v_user_id)).balance;

    select * into v_item from app.shop_items i where i.id = v_item_id and i.active;
    if v_item.id is null then
        perform api.fail(404, 'item_not_found', 'There is no such item in the shop.');
    end if;

    select ui.acquired_at into v_acquired_at
    from app.user_items ui where ui.user_id = v_user_id and ui.item_id = v_item_id;
    if v_acquired_at is not null then
        -- Bought again (a retry): what the purchase unlocked, as its answer said ([] for an item
        -- that came otherwise: a gift, the starters).
        return api.with_achievements(api.ok(jsonb_build_object('item', api.item_json(v_item), 'balance', v_balance,
                                                               'acquired_at', api.iso(v_acquired_at), 'already_owned', true),
                                            status => 200),
                                     v_user_id, 'item:' || v_item_id);
    end if;

    -- The price of this transaction's now() (docs/shop.md): a seasonal item outside its window
    -- is not in the shop (404), a sale's price applies from its start to its end (excluded).
    select p.price, p.sale_id into v_price, v_sale_id from app.item_price_at(v_item_id, now()) p;
    if v_price is null then
        perform api.fail(404, 'item_not_found', 'There is no such item in the shop.');
    end if;

    if v_balance < v_price then
        perform api.fail(409, 'insufficient_funds', 'You do not have enough coins for this item.',
                         jsonb_build_object('balance', v_balance, 'price', v_price));
    end if;

    insert into app.user_items (user_id, item_id) values (v_user_id, v_item_id)
    returning acquired_at into v_acquired_at;
    if v_price > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, item_id, sale_id)
        values (v_user_id, 'spend', -v_price, 'purchase', v_item_id, v_sale_id);
    end if;
    return api.with_achievements(api.ok(jsonb_build_object('item', api.offer_json(v_item, now()), 'balance', v_balance - v_price,
                                                          'acquired_at', api.iso(v_acquired_at), 'already_owned', false)),
                                 v_user_id, 'item:' || v_item_id);
end
$$;
grant execute on function api.shop_purchases_create(text, jsonb, jsonb) to focus_api;
comment on function api.shop_purchases_create(text, jsonb, jsonb) is
    'POST /shop/purchases: locks the buyer; 404 item_not_found (also a seasonal item outside its window), 409 '
    'insufficient_funds (balance, price), already owned: 200 and nothing charged (achievements_unlocked: what its '
    'purchase unlocked); else the price at the transaction''s '
    'now() (a sale''s inside it), ownership and ledger (naming the sale) written together.';
insert into api.endpoints (method, path, function, status, body, localized, errors)
values ('POST', '/shop/purchases', 'api.shop_purchases_create', 201, 'json', true,
        '{account_suspended, insufficient_funds, invalid_field, item_not_found}');

-- The kind in a path or query: pet, sound or furniture (400 invalid_field otherwise).
create function api.kind_param(params jsonb, required boolean)
returns text
language sql volatile
as $$
    select case when kind_param.params ->> 'kind' is null and not kind_param.required then null
                else api.choice(kind_param.params ->> 'kind', 'kind', array['pet', 'sound', 'furniture']) end
$$;

-- GET /me/items?kind=
create function api.me_items_list(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_items_list.token);
    v_kind text := api.kind_param(me_items_list.params, required => false);
    v_body jsonb;
begin
    v_body := jsonb_build_object('items', coalesce(
        (select jsonb_agg(jsonb_build_object('item', api.item_json(i), 'acquired_at', api.iso(ui.acquired_at))
                          order by i.kind, i.sort_order)
         from app.user_items ui join app.shop_items i on i.id = ui.item_id
         where ui.user_id = v_user_id and (v_kind is null or i.kind = v_kind)), '[]'));
    return api.ok(v_body, etag => md5(v_body::text));
end
$$;
grant execute on function api.me_items_list(text, jsonb, jsonb) to focus_api;
comment on function api.me_items_list(text, jsonb, jsonb) is
    'GET /me/items: the caller''s items, of one kind or all, in the request''s language, with an ETag of the answer.';
insert into api.endpoints (method, path, function, localized, errors)
values ('GET', '/me/items', 'api.me_items_list', true, '{account_suspended, invalid_field}');

-- PUT /me/selected/{kind} {item_id}
create function api.me_selected_update(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_selected_update.token);
    v_body jsonb := api.only_keys(me_selected_update.body, array['item_id']);
    v_kind text := api.kind_param(me_selected_update.params, required => true);
    v_item_id uuid := api.uuid_field(v_body, 'item_id');
    v_item_kind text;
begin
    select i.kind into v_item_kind from app.shop_items i where i.id = v_item_id;
    if v_item_kind is null then
        perform api.fail(404, 'item_not_found', 'There is no such item.');
    end if;
    if v_item_kind <> v_kind then
        perform api.fail(400, 'kind_mismatch', format('That item is a %s, not a %s.', v_item_kind, v_kind));
    end if;
    if not exists (select from app.user_items ui where ui.user_id = v_user_id and ui.item_id = v_item_id) then
        perform api.fail(409, 'not_owned', 'Buy the item before selecting it.');
    end if;
    insert into app.user_selections (user_id, kind, item_id) values (v_user_id, v_kind, v_item_id)
    on conflict (user_id, kind) do update set item_id = excluded.item_id;
    return api.ok(api.profile(v_user_id));
end
$$;
grant execute on function api.me_selected_update(text, jsonb, jsonb) to focus_api;
comment on function api.me_selected_update(text, jsonb, jsonb) is
    'PUT /me/selected/{kind}: 404 item_not_found, 400 kind_mismatch, 409 not_owned; else the new Profile.';
insert into api.endpoints (method, path, function, body, localized, errors, parameters)
values ('PUT', '/me/selected/{kind}', 'api.me_selected_update', 'json', true,
        '{account_suspended, invalid_field, item_not_found, kind_mismatch, not_owned}',
        '{"kind": {"schema": {"type": "string", "enum": ["pet", "sound", "furniture"]}}}');

-- A new account's starters: owned and selected, in the registration transaction.
create function api.give_starters(user_id uuid)
returns void
language sql volatile security definer set search_path = public, pg_temp
as $$
    insert into app.user_items (user_id, item_id)
    select give_starters.user_id, i.id from app.shop_items i where i.is_starter and i.active;
    insert into app.user_selections (user_id, kind, item_id)
    select give_starters.user_id, i.kind, i.id from app.shop_items i where i.is_starter and i.active;
$$;

-- What a user shows: {pet, sound, furniture}, each an Item or null. A table function in plain
-- SQL, so a query joining it laterally for many users gets it inlined.
create function api.selections_of(user_id uuid)
returns table (selected jsonb)
language sql stable
as $$
    select jsonb_build_object('pet', null, 'sound', null, 'furniture', null)
           || coalesce(jsonb_object_agg(s.kind, api.item_json(i)), '{}')
    from app.user_selections s join app.shop_items i on i.id = s.item_id
    where s.user_id = selections_of.user_id
$$;

create function api.selected_json(user_id uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select s.selected from api.selections_of(selected_json.user_id) s);
end
$$;
