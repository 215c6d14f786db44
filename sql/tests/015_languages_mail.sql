-- The language a mail is written in (app.person_language, docs/languages.md, "Mail, web pages
-- and push"): the person's locale unless left at the default en, then the asking request's
-- negotiated language, then English; each templated mail carries it in params.language.
begin;
select plan(9);
select test.new_user(name) from unnest(array['ana', 'ben', 'flo']) as name;
update app.users set locale = 'es-MX' where id = test.uid('ana');
update app.users set locale = 'fr' where id = test.uid('flo');

create function pg_temp.language_of(address text, kind text) returns text language sql as $$
    select m.params ->> 'language' from app.outgoing_mail m
    where m.recipient = address and m.kind = language_of.kind order by m.id desc limit 1
$$;

-- A reset, asked without a language: the locale decides (es-MX is served by es).
select test.reset_code('ana@example.com');
select test.reset_code('ben@example.com');
select is(pg_temp.language_of('ana@example.com', 'password_reset'), 'es', 'a reset is in the person''s locale');
select is(pg_temp.language_of('ben@example.com', 'password_reset'), 'en', '... English for the default locale');

-- A sign-up from a Spanish phone: its confirmation in Spanish (the new locale is the default).
select api.use_language('{"language": "es"}');
select api.auth_register(null, '{}', '{"email": "cai@example.com", "password": "correct horse", "display_name": "Cai"}');
select is(pg_temp.language_of('cai@example.com', 'email_verification'), 'es', 'a sign-up''s confirmation follows Accept-Language');
-- ... and a change of address by ana in the same (Spanish) request: her locale, es.
select api.use_language('{"language": "en"}');
select api.me_email_update(test.token('ana'), '{}', '{"email": "ana2@example.com", "password": "correct horse"}');
select is(pg_temp.language_of('ana2@example.com', 'email_verification'), 'es', 'a chosen locale comes before the request''s language');
-- flo chose French, which is not offered: English, whatever the request says.
select api.use_language('{"language": "es"}');
select api.me_email_update(test.token('flo'), '{}', '{"email": "flo2@example.com", "password": "correct horse"}');
select is(pg_temp.language_of('flo2@example.com', 'email_verification'), 'en', 'a locale not offered falls back to English, not to the request');

-- The holder of a taken address hears in their own locale, not the asker's language.
select api.me_email_update(test.token('ben'), '{}', '{"email": "ana@example.com", "password": "correct horse"}');
select is(pg_temp.language_of('ana@example.com', 'address_taken'), 'es', 'a notice to a holder is in the holder''s locale');

-- A deletion code asked on the Spanish page: the page's language for ben (default locale).
select api.account_deletion_create(null, '{"language": "es"}', '{"email": "ben@example.com"}');
select app.send_deletion_codes();
select is(pg_temp.language_of('ben@example.com', 'deletion_code'), 'es', 'a deletion code is in the page''s language');
select is((select count(*) from app.outgoing_mail where recipient = 'ben@example.com' and kind = 'deletion_code'
           and params ? 'code' and params ? 'minutes'), 1::bigint, '... a templated mail with its code and minutes');
select is(app.person_language(null, 'nobody@example.com', 'es-MX'), 'es', 'no account: the request''s language, by lookup');

select * from finish();
rollback;
