-- Social sign-in meets the guests and the age gate: the age question is asked at a social
-- sign-in as at sign-up (stored once), and a guest upgrades by linking a provider (POST
-- /me/identities): same id, everything kept, the provider's email its own; an email another
-- account has is refused as a social sign-in refuses it, and the guest stays a guest.
begin;
select plan(9);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('ada');
create function pg_temp.p(provider text, subject text, email text) returns jsonb language sql as $$
    select jsonb_build_object('client_ip', '192.0.2.9', 'identity', jsonb_build_object(
        'provider', provider, 'subject', subject, 'email', email, 'email_verified', true,
        'is_private_email', false, 'client_id', 'app.focusisland.ios', 'refresh_token', null)::text)
$$;
-- A child's birth month: the first of the month min_age years ago, a year later (this year's
-- calendar, whatever the clock).
create function pg_temp.child() returns jsonb language sql as $$
    select jsonb_build_object('birth_year', extract(year from current_date)::integer - (select min_age from app.age_settings) + 1,
                              'birth_month', 1)
$$;

-- The age question at a first Google sign-in.
select is((api.auth_google_login(null, pg_temp.p('google', 'g-kid', 'kid@example.net'),
                                 '{"id_token": "x.y.z"}'::jsonb || pg_temp.child())).status, 201,
          'a first Google sign-in with a child''s birth month makes the account');
select is((select (api.profile(u.id) ->> 'age_restricted')::boolean from app.users u where u.email = 'kid@example.net'), true,
          '... restricted by the age gate');
select is(test.answer_of($$select api.auth_google_login(null, pg_temp.p('google', 'g-x', 'x@example.net'),
                                                        '{"id_token": "x.y.z", "birth_year": 2001}')$$),
          'PT400 invalid_field', 'a birth year without its month is refused');

-- A guest with coins links Apple: upgraded, same id, coins kept, the provider's email.
create temporary table guest as
select (r.body -> 'user' ->> 'id')::uuid as id, r.body ->> 'token' as token
from api.auth_guest_create(null, '{"client_ip": "198.51.100.8"}', '{}') r;
select app.grant_coins((select id from guest), 40, 'a test grant');
select is((api.me_identities_create((select token from guest), pg_temp.p('apple', 'a-guest', 'gina@example.net'),
                                    '{"provider": "apple", "id_token": "x.y.z", "nonce": "n"}')).status, null,
          'a guest links Apple: the route''s 201');
select is((select row(u.email::text, u.email_verified_at is not null, u.password_hash is not null)::text
           from app.users u where u.id = (select id from guest)), '(gina@example.net,t,t)',
          '... the account has the provider''s email, verified, and a password nobody knows');
select is((api.profile((select id from guest)) ->> 'guest')::boolean, false, '... and is a guest no more');
select is((select balance from app.users where id = (select id from guest)), 40, '... keeping its coins');

-- Another guest whose provider email is Ada's: refused as a social sign-in is, still a guest.
create temporary table guest2 as
select r.body ->> 'token' as token, (r.body -> 'user' ->> 'id')::uuid as id
from api.auth_guest_create(null, '{"client_ip": "198.51.100.9"}', '{}') r;
select is((api.me_identities_create((select token from guest2), pg_temp.p('google', 'g-ada', 'ada@example.com'),
                                    '{"provider": "google", "id_token": "x.y.z"}')).code, 'account_exists_link_required',
          'a guest linking a provider whose email has an account: 409 account_exists_link_required');
select is((select row(u.email, (select count(*) from app.user_identities i where i.user_id = u.id))::text
           from app.users u where u.id = (select id from guest2)), '(,0)', '... still a guest, nothing linked');

select * from finish();
rollback;
