-- 0097 mail in the person's language (2026-12-07, docs/languages.md, docs/mail.md): the account
-- deletion code becomes a templated kind (deletion_code: mail/deletion_code.txt and .html, and
-- their translations in mail/<language>/), and a web deletion request keeps the language its
-- page was shown in (Accept-Language), which the code's mail is written in unless the person
-- chose a locale. A new kind is one row of the registry (its check is written again, NOT VALID,
-- by the registry's trigger: app.registry_check); one nullable column on a small queue table,
-- its check NOT VALID here and validated by 0099.
set local lock_timeout = '2s';

alter table app.account_deletion_requests add column language text;
alter table app.account_deletion_requests add constraint account_deletion_requests_language_check
    check (language is null or app.language_tag_is_canonical(language)) not valid;  -- validated by 0099
comment on column app.account_deletion_requests.language is
    'personal: no (a language tag, as es); on erasure: deleted with the request';

insert into app.mail_kinds (kind, description) values
    ('deletion_code', 'An account deletion code asked for on the web page (app.send_deletion_codes).');
