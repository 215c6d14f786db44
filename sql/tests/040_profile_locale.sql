-- settings.locale: English until set, any BCP 47 tag stored in canonical case, refusals change nothing.
begin;
select plan(9);
select test.new_user('hablante');

select is((api.me_get(test.token('hablante'), '{}', '{}')).body -> 'settings' ->> 'locale', 'en', 'a new account''s locale is en');
select is((api.me_update(test.token('hablante'), '{}', '{"settings": {"locale": "es-mx"}}')).body -> 'settings' ->> 'locale', 'es-MX',
          'a locale is stored in canonical case');
select is(app.language_for((select locale from app.users where id = test.uid('hablante'))), 'es',
          'push and mail pick Spanish for es-MX');
select is((api.me_update(test.token('hablante'), '{}', '{"settings": {"locale": "fr-CA"}}')).body -> 'settings' ->> 'locale', 'fr-CA',
          'a language not offered may be one''s locale');
select is((api.me_update(test.token('hablante'), '{}', '{"settings": {"show_tip_on_timer": false}}')).body -> 'settings' ->> 'locale', 'fr-CA',
          'another setting leaves it');
select is(test.error_of($$ select api.me_update(test.token('hablante'), '{}', '{"settings": {"locale": "fr_CA"}}') $$),
          'PT400 invalid_field', 'a tag with an underscore is invalid_field');
select is(test.error_of($$ select api.me_update(test.token('hablante'), '{}', '{"settings": {"locale": 7}}') $$),
          'PT400 invalid_field', 'a number is invalid_field');
select is(test.error_of($$ select api.me_update(test.token('hablante'), '{}', '{"settings": {"locale": "es-ES-x-twain-and-more-words-here-too"}}') $$),
          'PT400 invalid_field', 'more than 35 characters is invalid_field');
select is((select locale from app.users where id = test.uid('hablante')), 'fr-CA', 'a refused locale changed nothing');

select * from finish();
rollback;
