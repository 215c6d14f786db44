-- api languages: the language of a request's answer and the languages the server negotiates.
-- The HTTP layer picks the language (Accept-Language against api.languages_offered(), RFC 4647
-- lookup, English otherwise) and passes it as params.language; the statement of a route whose
-- answer holds item or tip text wraps its params in api.use_language (Route.statement), which
-- sets it for the request's transaction, so api.item_json and api.tip_json, however deep they
-- are called, answer in it. The rules: docs/languages.md.

-- Not an endpoint: sets the request's language from params.language (for the rest of the
-- transaction) and returns params unchanged. A value that is not a language tag the app keeps
-- (a caller other than the server) is English; a known tag with no translations reads as English.
create function api.use_language(params jsonb)
returns jsonb
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_tag text := use_language.params ->> 'language';
begin
    -- The server sends a tag it negotiated, already canonical: kept as it is (the check inlines),
    -- without app.language_tag_canonical's recasing, which costs a plan of its own every call.
    if not coalesce(app.language_tag_is_canonical(v_tag), false) then
        v_tag := coalesce(app.language_tag_canonical(v_tag), 'en');
    end if;
    perform set_config('focus.language', v_tag, true);
    return use_language.params;
end
$$;
grant execute on function api.use_language(jsonb) to focus_api;
comment on function api.use_language(jsonb) is
    'Not an endpoint: a localized route''s statement sets the request''s language (params.language) with it.';

-- The request's language: what api.use_language set, English when nothing did.
create function api.language()
returns text
language sql stable
as $$ select coalesce(nullif(current_setting('focus.language', true), ''), 'en') $$;

-- Not an endpoint: the languages the server negotiates from, English first, then the offered
-- ones by tag, comma-separated (the server reloads it whenever catalog.changed or tips.changed
-- empties its cache, which any change to app.languages announces).
create function api.languages_offered()
returns text
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select string_agg(t.tag, ',' order by t.n, t.tag)
        from (select 'en' as tag, 0 as n
              union all
              select l.tag, 1 from app.languages l where l.offered) t);
end
$$;
grant execute on function api.languages_offered() to focus_api;
comment on function api.languages_offered() is
    'Not an endpoint: the languages the server negotiates Accept-Language against, English first.';
