-- After 0080: a guest (neither email nor password) and an account with a birth month and a
-- parent's consent asked, written beside the rows of before, so 0081 validates
-- users_guest_or_account and users_birth_month_check over both kinds of account.
insert into app.users (email, password_hash, display_name) values (null, null, 'Upgrade guest');
update app.users set birth_month = date '2016-03-01'
where id = (select u.id from app.users u where u.email is not null and u.deleted_at is null order by u.created_at, u.id limit 1);
insert into app.parental_consents (user_id, parent_email, digest, expires_at)
select u.id, 'upgrade-parent@example.com', sha256('upgrade'::bytea), now() + interval '7 days'
from app.users u where u.birth_month is not null limit 1;
