-- The language a console page is shown in (api.console_session_json, docs/web.md, "Languages"):
-- the moderator's locale unless left at the default en, then the page's Accept-Language
-- (params.language, negotiated by the server), then English.
begin;
select plan(4);
select test.new_user('mod');
insert into app.moderators (user_id) values (test.uid('mod'));
create temporary table session as
select (api.moderation_session_create(null, '{}', '{"email": "mod@example.com", "password": "correct horse"}')).body ->> 'token' as token;
create function pg_temp.language(params jsonb) returns text language sql as $$
    select (api.moderation_audit_list((select token from session), params, '{}')).body ->> 'language'
$$;

select is(pg_temp.language('{}'), 'en', 'no header, the default locale: English');
select is(pg_temp.language('{"language": "es"}'), 'es', 'the default locale defers to the page''s language');
update app.users set locale = 'es-MX' where id = test.uid('mod');
select is(pg_temp.language('{"language": "en"}'), 'es', 'a chosen locale comes first (es-MX served by es)');
update app.users set locale = 'de' where id = test.uid('mod');
select is(pg_temp.language('{"language": "es"}'), 'en', '... and one not offered is English, not the page''s');

select * from finish();
rollback;
