-- Translations: items and tips in the request's language, English for a language or a row
-- that has none, the catalog's ETag per language, versions and events on a change, the rules.
begin;
select plan(21);
select test.new_user('lector');
select test.session('lector', test.day_start(1) + interval '2 hours', 30, md5('lector1')::uuid);
select test.session('lector', test.day_start(1) + interval '4 hours', 30, md5('lector2')::uuid);

-- The catalog in Spanish and in English.
select api.use_language('{"language": "es"}');
select is((select e ->> 'name' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'pets') e
           where (e ->> 'id')::uuid = test.item('Pip the Fox')), 'Pip el zorro', 'Spanish: the item''s Spanish name');
select is((select e ->> 'description' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'sounds') e
           where (e ->> 'id')::uuid = test.item('Campfire')), 'Leña que crepita bajo el cielo abierto.',
          '... and its Spanish description');
select is((api.shop_items_list(null, '{}', '{}')).etag, 'catalog-' || (select version from app.catalog_version) || '-es',
          'the ETag names the version and the language');
select api.use_language('{"language": "en"}');
select is((select e ->> 'name' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'pets') e
           where (e ->> 'id')::uuid = test.item('Pip the Fox')), 'Pip the Fox', 'English: the item''s own name');
select api.use_language('{"language": "fr"}');
select is((select e ->> 'name' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'pets') e
           where (e ->> 'id')::uuid = test.item('Pip the Fox')), 'Pip the Fox', 'a language with no rows: English');

-- A row missing for one item: that item in English, the others in Spanish.
select api.use_language('{"language": "es"}');
delete from app.shop_item_translations where item_id = test.item('Campfire') and language = 'es';
select is((select e ->> 'name' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'sounds') e
           where (e ->> 'id')::uuid = test.item('Campfire')), 'Campfire', 'an item without its row is in English');
select is((select e ->> 'name' from jsonb_array_elements((api.shop_items_list(null, '{}', '{}')).body -> 'sounds') e
           where (e ->> 'id')::uuid = test.item('Ocean Tide')), 'Marea', '... the others stay Spanish');

-- Items everywhere an item is shown: sync, inventory, the Profile's selection.
select is((select e ->> 'name' from jsonb_array_elements((api.shop_items_sync(null, '{}', '{"known_ids": []}')).body -> 'missing') e
           where (e ->> 'id')::uuid = test.item('Sprout')), 'Brote', 'catalog sync is Spanish');
select is((api.me_items_list(test.token('lector'), '{"kind": "pet"}', '{}')).body -> 'items' -> 0 -> 'item' ->> 'name', 'Brote',
          'the inventory is Spanish');
select is((api.me_get(test.token('lector'), '{}', '{}')).body -> 'selected' -> 'furniture' ->> 'name', 'Estera de paja',
          'the Profile''s selection is Spanish');

-- Tips: the rating's tip, both sync shapes.
select is((select t.language from app.mindfulness_tip_translations t
           where t.tip_id = ((api.focus_sessions_rate(test.token('lector'), jsonb_build_object('id', md5('lector1')::uuid),
                                                      '{"rating": "bad"}')).body -> 'tip' ->> 'id')::uuid
             and t.title = (select (api.focus_sessions_rate(test.token('lector'), jsonb_build_object('id', md5('lector1')::uuid),
                                                            '{"rating": "bad"}')).body -> 'tip' ->> 'title')),
          'es', 'a rating''s tip is Spanish, and so is the same tip on a retry');
select api.use_language('{"language": "en"}');
select is((select t.title from app.mindfulness_tips t
           where t.id = ((api.focus_sessions_rate(test.token('lector'), jsonb_build_object('id', md5('lector1')::uuid),
                                                  '{"rating": "bad"}')).body -> 'tip' ->> 'id')::uuid),
          (api.focus_sessions_rate(test.token('lector'), jsonb_build_object('id', md5('lector1')::uuid), '{"rating": "bad"}')).body -> 'tip' ->> 'title',
          'the retry in English gets the same tip in English');
select api.use_language('{"language": "es"}');
select is((select count(*)::integer from jsonb_array_elements((api.mindfulness_tips_sync(null, '{}', '{"known_ids": []}')).body -> 'missing') e
           join app.mindfulness_tip_translations t on t.tip_id = (e ->> 'id')::uuid and t.language = 'es'
           where e ->> 'title' = t.title and e ->> 'content' = t.content),
          (select count(*)::integer from app.mindfulness_tips where active), 'tip sync gives every tip in Spanish');
select is((select e ->> 'title' from jsonb_array_elements((api.mindfulness_tips_sync(null, '{}', '{"itemIds": []}')).body -> 'missingItems') e
           where (e ->> 'id')::uuid = md5('focus-island:tip:bad:Box breathing')::uuid), 'Respiración cuadrada',
          'the original app''s sync shape too');
create temporary table spanish_order on commit drop as
select array_agg(e ->> 'id') as ids from jsonb_array_elements((api.mindfulness_tips_sync(null, '{}', '{"known_ids": []}')).body -> 'missing') e;
select api.use_language('{"language": "en"}');
select is((select array_agg(e ->> 'id') from jsonb_array_elements((api.mindfulness_tips_sync(null, '{}', '{"known_ids": []}')).body -> 'missing') e),
          (select ids from spanish_order), 'tips come in the same order in every language');

-- A changed translation is a new version, announced to every server.
select api.use_language('{"language": "es"}');
create temporary table before on commit drop as
select (select version from app.catalog_version) as catalog, (select version from app.tips_version) as tips,
       (api.shop_items_list(null, '{}', '{}')).etag as etag, coalesce((select max(id) from app.events), 0) as last_event;
update app.shop_item_translations set name = 'Pip, el zorro' where item_id = test.item('Pip the Fox') and language = 'es';
select isnt((api.shop_items_list(null, '{}', '{}')).etag, (select etag from before), 'a changed translation changes the catalog''s ETag');
select is((select array_agg(type::text order by id) from app.events where id > (select last_event from before) and user_id is null),
          array['catalog.changed'], '... and announces catalog.changed');
update app.mindfulness_tip_translations set content = content || ' ' where tip_id = md5('focus-island:tip:bad:Unclench')::uuid;
select is((select version from app.tips_version), (select tips + 1 from before), 'a changed tip translation is a new tips version');

-- The tables' rules.
select throws_ok($$ insert into app.shop_item_translations (item_id, language, name, description)
                    values (test.item('Sprout'), 'fr', 'Pousse', 'Une pousse.') $$, '23503', null,
                 'a translation names a known language');
select throws_ok($$ insert into app.shop_item_translations (item_id, language, name, description)
                    values (test.item('Sprout'), 'es', 'Brotecito', 'Otro.') $$, '23505', null,
                 'one row per item and language');
select throws_ok($$ insert into app.mindfulness_tip_translations (tip_id, language, title, content)
                    values (md5('focus-island:tip:bad:Unclench')::uuid, 'es', '', 'x') $$, '23514', null,
                 'a title is not empty');

select * from finish();
rollback;
