-- Languages: what a language tag may be (app.languages.tag and app.users.locale, both bound in
-- 0021_languages.sql) and which offered language serves a person's locale where no request
-- negotiates one (push and mail). The HTTP layer negotiates Accept-Language itself
-- (Sources/FocusIsland/HTTP/AcceptLanguage.swift, docs/languages.md); both use RFC 4647 lookup.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Whether a tag is a BCP 47 language tag in its canonical case, of the forms the app uses:
-- a language (2 or 3 letters, lower case), then optionally a script (4 letters, title case),
-- a region (2 letters upper case, or 3 digits) and variants (5 to 8 letters or digits, or a
-- digit and 3 more; lower case). Extensions and private use are not kept. At most 35 characters.
create or replace function app.language_tag_is_canonical(tag text)
returns boolean
language sql immutable parallel safe
as $$
    select length(language_tag_is_canonical.tag) <= 35
       and language_tag_is_canonical.tag ~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*$'
$$;
comment on function app.language_tag_is_canonical(text) is
    'A BCP 47 language tag in canonical case (language, script, region, variants; no extensions), at most 35 characters.';

-- A tag written in any case in its canonical case (es-mx → es-MX, zh-hant-tw → zh-Hant-TW);
-- null when it is not a tag app.language_tag_is_canonical keeps once recased.
create or replace function app.language_tag_canonical(tag text)
returns text
language sql immutable parallel safe
as $$
    select case when app.language_tag_is_canonical(c.tag) then c.tag end
    from (select string_agg(case when p.n = 1 then lower(p.part)
                                 when length(p.part) = 4 and p.part ~ '^[A-Za-z]+$' and p.n = 2 then initcap(p.part)
                                 when length(p.part) = 2 and p.n between 2 and 3 then upper(p.part)
                                 else lower(p.part) end, '-' order by p.n) as tag
          from unnest(string_to_array(language_tag_canonical.tag, '-')) with ordinality as p(part, n)) c
$$;
comment on function app.language_tag_canonical(text) is
    'A language tag recased to its canonical form (es-mx → es-MX); null when it is not a tag the app keeps.';

-- The offered language that serves a locale, by RFC 4647 lookup: the locale itself if offered,
-- else the locale with its last subtag removed (and a single-letter subtag left at the end
-- removed too), and so on; English when none is. Case does not matter; the answer is the
-- offered tag as app.languages spells it ('en' when English). What push and mail are written in.
create or replace function app.language_for(locale text)
returns text
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_tag text := lower(language_for.locale);
    v_found text;
begin
    -- PL/pgSQL, not SQL: a database upgraded from before 0021 loads this file before
    -- app.languages exists, and only a SQL function's body is checked when it is created.
    while v_tag <> '' loop
        select l.tag into v_found from app.languages l where lower(l.tag) = v_tag and l.offered;
        if v_found is not null then
            return v_found;
        end if;
        v_tag := regexp_replace(regexp_replace(v_tag, '-?[^-]*$', ''), '-[^-]$', '');
    end loop;
    return 'en';
end
$$;
comment on function app.language_for(text) is
    'The offered language that serves a locale (RFC 4647 lookup: es-MX → es-MX, es, then English); '
    'what push and mail are written in.';

-- The language a mail is written in (2026-12-07, docs/languages.md): the person's
-- settings.locale (the offered language it falls back to, app.language_for) when they chose one
-- other than the default `en`; else `requested`, the language the request that wrote the mail
-- negotiated from its Accept-Language (or the web page it was asked on), when offered; else
-- English. The person: the account `user_id`, else the live account holding `email` (none for a
-- sign-up's code: then the request decides).
create or replace function app.person_language(user_id uuid, email text, requested text default null)
returns text
language plpgsql stable security definer set search_path = public, pg_temp
as $$
declare
    v_locale text;
begin
    if person_language.user_id is not null then
        select u.locale into v_locale from app.users u where u.id = person_language.user_id;
    elsif person_language.email is not null then
        select u.locale into v_locale from app.users u where u.email = person_language.email::citext and u.deleted_at is null;
    end if;
    if v_locale is not null and v_locale <> 'en' then
        return app.language_for(v_locale);
    end if;
    return app.language_for(coalesce(person_language.requested, 'en'));
end
$$;
comment on function app.person_language(uuid, text, text) is
    'The language of a mail: the person''s locale unless left at en, then the asking request''s language, then English.';
