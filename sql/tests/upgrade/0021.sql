-- Data after 0021: a locale, a language offered with a translation of an older item, and one
-- not offered yet.
update app.users set locale = 'es-MX' where id = '11111111-1111-4111-8111-111111111111';
insert into app.languages (tag, name) values ('de', 'Deutsch'), ('pt-BR', 'Português');
insert into app.shop_item_translations (item_id, language, name, description)
values ('33333333-3333-4333-8333-333333333333', 'de', 'Frühaufsteher', 'Aus der Zeit vor den Fokus-Sitzungen.');
update app.languages set offered = true where tag = 'de';
