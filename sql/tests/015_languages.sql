-- Languages: tags, the request's language, the offered set, and lookup for push and mail.
begin;
select plan(24);

-- What a tag may be (app.languages.tag, app.users.locale).
select ok(app.language_tag_is_canonical('es'), 'es is a canonical tag');
select ok(app.language_tag_is_canonical('pt-BR') and app.language_tag_is_canonical('zh-Hant-TW')
          and app.language_tag_is_canonical('es-419') and app.language_tag_is_canonical('de-CH-1996'),
          'a region, a script, a numeric region and a variant are kept');
select ok(not app.language_tag_is_canonical('ES') and not app.language_tag_is_canonical('pt-br'),
          'other cases are not canonical');
select ok(not app.language_tag_is_canonical('') and not app.language_tag_is_canonical('e')
          and not app.language_tag_is_canonical('es_MX') and not app.language_tag_is_canonical('en-US-x-private')
          and not app.language_tag_is_canonical('*') and not app.language_tag_is_canonical(repeat('abcde-', 7) || 'ab'),
          'empty, one letter, an underscore, private use, a wildcard and 36+ characters are refused');
select is(app.language_tag_canonical('ES-mx'), 'es-MX', 'a tag in any case is recased');
select is(app.language_tag_canonical('zh-hant-tw'), 'zh-Hant-TW', 'script in title case, region in upper case');
select is(app.language_tag_canonical('es-419'), 'es-419', 'a numeric region stays');
select is(app.language_tag_canonical('en_US'), null, 'not a tag: null');

-- The request's language: what api.use_language set for the transaction, English otherwise.
select is(api.language(), 'en', 'nothing set: English');
select is(api.use_language('{"language": "es", "id": "x"}'), '{"language": "es", "id": "x"}'::jsonb,
          'api.use_language returns the params unchanged');
select is(api.language(), 'es', '... and sets the request''s language');
select api.use_language('{"language": "not a tag!"}');
select is(api.language(), 'en', 'a value that is no tag is English');
select api.use_language('{}');
select is(api.language(), 'en', 'no language: English');
select api.use_language('{"language": "ES"}');
select is(api.language(), 'es', 'a tag in another case is recased');
select api.use_language('{}');

-- The offered set: English first, then the offered languages (the seed offers Spanish).
select is(api.languages_offered(), 'en,es', 'English and the seed''s Spanish are offered');
insert into app.languages (tag, name) values ('de', 'Deutsch');
select is(api.languages_offered(), 'en,es', 'a language not yet offered is not negotiated');
update app.languages set offered = true where tag = 'de';
select is(api.languages_offered(), 'en,de,es', 'once offered it is, by tag after English');

-- app.language_for: RFC 4647 lookup of a locale among the offered languages.
select is(app.language_for('es'), 'es', 'an offered locale is its own language');
select is(app.language_for('es-MX'), 'es', 'es-MX falls back to es');
select is(app.language_for('ES-mx-x-private'), 'es', 'case and a private-use tail do not matter');
select is(app.language_for('fr'), 'en', 'a language not offered gets English');
update app.languages set offered = false where tag = 'de';
select is(app.language_for('de-AT'), 'en', 'nor does one withdrawn');

-- The table's rules: a canonical tag, never English itself (the rows' own language).
select throws_ok($$ insert into app.languages (tag, name) values ('EN-gb', 'English') $$, '23514', null,
                 'a tag not in canonical case is refused');
select throws_ok($$ insert into app.languages (tag, name) values ('en', 'English') $$, '23514', null,
                 'English is no row: it is the catalog''s own language');

select * from finish();
rollback;
