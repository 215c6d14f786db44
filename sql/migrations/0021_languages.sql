-- 0021 languages (2026-12-01).
--
-- Translations of the catalog and of the tips, in tables a DBA fills; English stays the text
-- of app.shop_items and app.mindfulness_tips themselves, and the fallback of every row that has
-- no translation. app.languages lists the languages besides English: a translation names one
-- (a known tag, foreign key), one row per item or tip and language (primary key). A language is
-- negotiated only once `offered`, so a DBA fills its rows first and offers it last.
-- Every change to a translation, or to a language, is a new catalog and tips version (their
-- ETags move and every server's cache empties through catalog.changed / tips.changed, as for
-- a change of the rows themselves). The rules: docs/languages.md.
--
-- A person's locale (settings.locale, PATCH /me): a BCP 47 tag, 'en' until set, for what is
-- sent without a request (push, mail): app.language_for(locale) picks the offered language.

create table app.languages (
    tag         text primary key constraint languages_tag_check check (app.language_tag_is_canonical(tag) and tag <> 'en'),
    name        text not null check (length(name) between 1 and 60),
    offered     boolean not null default false,
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now()
);
comment on table app.languages is
    'Languages besides English (the catalog''s own): negotiated from Accept-Language once offered. '
    'name is the language''s name in itself (Español).';

create table app.shop_item_translations (
    item_id     uuid not null references app.shop_items,
    language    text not null references app.languages on update cascade,
    name        text not null check (length(name) between 1 and 60),
    description text not null check (length(description) between 1 and 200),
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now(),
    primary key (item_id, language)
);
comment on table app.shop_item_translations is
    'An item''s name and description in one language; an item without a row is shown in English.';

create table app.mindfulness_tip_translations (
    tip_id      uuid not null references app.mindfulness_tips,
    language    text not null references app.languages on update cascade,
    title       text not null check (length(title) between 1 and 80),
    content     text not null check (length(content) between 1 and 1000),
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now(),
    primary key (tip_id, language)
);
comment on table app.mindfulness_tip_translations is
    'A tip''s title and content in one language; a tip without a row is shown in English.';

-- A changed translation is a new catalog (tips) version, announced like a changed item (tip).
create trigger shop_item_translations_bump_version
after insert or update or delete on app.shop_item_translations
for each row execute function app.bump_catalog_version();
create trigger shop_item_translations_inserted_events after insert on app.shop_item_translations
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger shop_item_translations_updated_events after update on app.shop_item_translations
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger shop_item_translations_deleted_events after delete on app.shop_item_translations
referencing old table as changed for each statement execute function app.announce_version('catalog.changed');

create trigger mindfulness_tip_translations_bump_version
after insert or update or delete on app.mindfulness_tip_translations
for each row execute function app.bump_tips_version();
create trigger mindfulness_tip_translations_inserted_events after insert on app.mindfulness_tip_translations
referencing new table as changed for each statement execute function app.announce_version('tips.changed');
create trigger mindfulness_tip_translations_updated_events after update on app.mindfulness_tip_translations
referencing new table as changed for each statement execute function app.announce_version('tips.changed');
create trigger mindfulness_tip_translations_deleted_events after delete on app.mindfulness_tip_translations
referencing old table as changed for each statement execute function app.announce_version('tips.changed');

-- A language offered or withdrawn changes what both answer (and the set servers negotiate from).
create trigger languages_bump_catalog_version
after insert or update or delete on app.languages
for each row execute function app.bump_catalog_version();
create trigger languages_bump_tips_version
after insert or update or delete on app.languages
for each row execute function app.bump_tips_version();
create trigger languages_inserted_catalog_events after insert on app.languages
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger languages_updated_catalog_events after update on app.languages
referencing new table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger languages_deleted_catalog_events after delete on app.languages
referencing old table as changed for each statement execute function app.announce_version('catalog.changed');
create trigger languages_inserted_tips_events after insert on app.languages
referencing new table as changed for each statement execute function app.announce_version('tips.changed');
create trigger languages_updated_tips_events after update on app.languages
referencing new table as changed for each statement execute function app.announce_version('tips.changed');
create trigger languages_deleted_tips_events after delete on app.languages
referencing old table as changed for each statement execute function app.announce_version('tips.changed');

-- The person's locale: existing accounts get English, as new ones do until they set it.
alter table app.users add column locale text not null default 'en'
    constraint users_locale_check check (app.language_tag_is_canonical(locale));
comment on column app.users.locale is
    'The person''s language (BCP 47, PATCH /me settings.locale) for push and mail: app.language_for(locale).';
