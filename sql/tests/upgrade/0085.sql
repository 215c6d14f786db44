-- Data after 0085: a linked Apple identity holding a refresh token and a queued revocation, so
-- later migrations of these tables carry rows over (an account of the earlier steps' data, or
-- one made here).
insert into app.users (email, password_hash, display_name)
select 'upgrade-social@example.com', crypt('x', gen_salt('bf', 4)), 'Upgrade Social'
where not exists (select from app.users where email = 'upgrade-social@example.com');
insert into app.user_identities (provider, subject, user_id, email, client_id, apple_refresh_token)
select 'apple', '000123.upgrade.0085', u.id, 'x7q@privaterelay.appleid.com', 'app.focusisland.ios', 'rt-upgrade'
from app.users u where u.email = 'upgrade-social@example.com';
insert into app.apple_revocations (client_id, refresh_token) values ('app.focusisland.ios', 'rt-upgrade-erased');
