-- Social sign-in's account rules, given the identity the server verified (params.identity):
-- a first sign-in makes an account (email verified when the provider says so, an Apple relay
-- address like any other), a second signs in as it; a provider email an account holds links
-- nothing (409 account_exists_link_required) until the signed-in owner links it (POST
-- /me/identities); one identity per provider per account, one account per identity; erasure
-- deletes the identities and queues the Apple refresh token's revocation, which the sender
-- claims and settles.
begin;
select plan(44);
update app.auth_settings set bcrypt_cost = 4;
select test.new_user('ada');
-- What the server passes once it verified a token.
create function pg_temp.p(provider text, subject text, email text, verified boolean default true,
                          refresh text default null, name text default null) returns jsonb language sql as $$
    select jsonb_build_object('client_ip', '192.0.2.9', 'identity', jsonb_build_object(
        'provider', provider, 'subject', subject, 'email', email, 'email_verified', verified,
        'is_private_email', email like '%privaterelay%', 'client_id', 'app.focusisland.ios', 'name', name,
        'refresh_token', refresh)::text)
$$;
create function pg_temp.apple(subject text, email text, body jsonb default '{}', refresh text default null) returns api.reply
language sql as $$
    select api.auth_apple_login(null, pg_temp.p('apple', subject, email, refresh => refresh),
                          '{"id_token": "x.y.z", "nonce": "n-1"}'::jsonb || body)
$$;

-- A first sign-in with Apple (a relay address) makes an account, verified, with the name the app sent.
select is((pg_temp.apple('001.abc', 'x7q@privaterelay.appleid.com', '{"display_name": "Relay Rita"}', 'rt-1')).status, 201,
          'a first Apple sign-in makes an account (201)');
select is((select row(u.display_name, u.email_verified_at is not null)::text from app.users u
           where u.email = 'x7q@privaterelay.appleid.com'), '("Relay Rita",t)', '... its email verified, the name the app sent');
select is((select count(*)::integer from app.user_items i join app.users u on u.id = i.user_id
           where u.email = 'x7q@privaterelay.appleid.com') > 0, true, '... with the starters');
select is((select apple_refresh_token from app.user_identities where subject = '001.abc'), 'rt-1', '... the refresh token kept');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'x7q@privaterelay.appleid.com'), 0,
          '... no verification mail for a verified email');
select is(test.answer_of($$select api.auth_login(null, '{}', '{"email": "x7q@privaterelay.appleid.com", "password": "x"}')$$),
          'PT401 invalid_credentials', '... and no password anyone knows');

-- Again: the same account, 200, a new token; a new refresh token replaces the old, which is queued.
select is((pg_temp.apple('001.abc', 'x7q@privaterelay.appleid.com')).status, null, 'signing in again answers the route''s 200');
select is(((pg_temp.apple('001.abc', 'x7q@privaterelay.appleid.com')).body -> 'user' ->> 'email'),
          'x7q@privaterelay.appleid.com', '... as the same account');
select is((select count(*)::integer from app.users where email = 'x7q@privaterelay.appleid.com'), 1, '... no second account');
select pg_temp.apple('001.abc', 'x7q@privaterelay.appleid.com', refresh => 'rt-2');
select is((select apple_refresh_token from app.user_identities where subject = '001.abc'), 'rt-2', 'a new refresh token replaces the old');
select is((select array_agg(refresh_token) from app.apple_revocations), array['rt-1'], '... which is queued for revocation');

-- Google: an unverified email makes an account with a code mailed; the provider's name is used.
select is((api.auth_google_login(null, pg_temp.p('google', 'g-1', 'gus@example.net', false, name => 'Gus Grant'),
                           '{"id_token": "x.y.z"}')).status, 201, 'a first Google sign-in makes an account');
select is((select row(u.display_name, u.email_verified_at is null)::text from app.users u where u.email = 'gus@example.net'),
          '("Gus Grant",t)', '... unverified as the provider said, named by its name claim');
select is((select count(*)::integer from app.outgoing_mail where recipient = 'gus@example.net' and kind = 'email_verification'), 1,
          '... and a verification code mailed');
select is((select display_name from app.users u join app.user_identities i on i.user_id = u.id where i.subject = 'g-2')
          is null, true, 'fixture: g-2 unknown');
select api.auth_google_login(null, pg_temp.p('google', 'g-2', 'nameless@example.net', name => E'bad\u202ename'), '{"id_token": "x.y.z"}');
select is((select display_name from app.users where email = 'nameless@example.net'), 'Islander',
          'a provider name that fails the name rules gives the default name');

-- An email an account holds: 409, nothing linked or made, for either provider and any case.
select is(test.answer_of($$select pg_temp.apple('001.ada', 'ADA@example.com')$$), 'PT409 account_exists_link_required',
          'an Apple email an account holds answers 409 account_exists_link_required');
select is(test.answer_of($$select api.auth_google_login(null, pg_temp.p('google', 'g-ada', 'ada@example.com'), '{"id_token": "t"}')$$),
          'PT409 account_exists_link_required', '... and a Google one');
select is((select count(*)::integer from app.user_identities where subject in ('001.ada', 'g-ada')), 0, '... nothing linked');

-- Those 409s count against the address as sign-up's do: past the budget, 429 (Retry-After).
update app.auth_settings set max_taken_answers_per_address = (
    select count(*)::integer + 1 from app.taken_email_answers where client_ip = '192.0.2.9');
select is(test.answer_of($$select pg_temp.apple('001.ada', 'ada@example.com')$$), 'PT409 account_exists_link_required',
          'the last 409 of the address''s budget');
select is((select row(r.status, r.code, r.retry_after > 0)::text from pg_temp.apple('001.ada', 'ada@example.com') r),
          '(429,too_many_attempts,t)', '... then 429 too_many_attempts with Retry-After');
update app.auth_settings set max_taken_answers_per_address = 20;

-- The owner, signed in, links both; the same identity again is 200; sign-in then works.
select is((api.me_identities_create(test.token('ada'), pg_temp.p('apple', '001.ada', 'ada@example.com', refresh => 'rt-ada'),
                                    '{"provider": "apple", "id_token": "x.y.z", "nonce": "n"}')).body ->> 'provider',
          'apple', 'the signed-in owner links Apple');
select is((api.me_identities_create(test.token('ada'), pg_temp.p('google', 'g-ada', 'ada@example.com'),
                                    '{"provider": "google", "id_token": "x.y.z"}')).status, null, '... and Google (the route''s 201)');
select is((api.me_identities_create(test.token('ada'), pg_temp.p('google', 'g-ada', 'ada@example.com'),
                                    '{"provider": "google", "id_token": "x.y.z"}')).status, 200, 'the same identity again answers 200');
select is(((pg_temp.apple('001.ada', 'ada@example.com')).body -> 'user' ->> 'id')::uuid, test.uid('ada'),
          'then Apple signs in as the account');
select is((api.me_identities_list(test.token('ada'), '{}', '{}')).body -> 'identities' -> 0 ?& array['provider', 'email', 'linked_at', 'last_sign_in_at'],
          true, 'the list shows provider, email and dates');
select is((api.me_identities_list(test.token('ada'), '{}', '{}')).body::text ~ '001\.ada|g-ada|rt-ada', false, '... never a subject or token');

-- One account per identity, one identity per provider per account.
select test.new_user('bo');
select is(test.error_of($$select api.me_identities_create(test.token('bo'), pg_temp.p('google', 'g-ada', 'ada@example.com'),
                                                          '{"provider": "google", "id_token": "x.y.z"}')$$),
          'PT409 identity_linked_elsewhere', 'an identity another account has is 409 identity_linked_elsewhere');
select is(test.error_of($$select api.me_identities_create(test.token('ada'), pg_temp.p('google', 'g-other', 'ada2@example.com'),
                                                          '{"provider": "google", "id_token": "x.y.z"}')$$),
          'PT409 identity_provider_linked', 'a second Google account for one account is 409 identity_provider_linked');

-- Refused before anything: no verified identity (the body lacked the token or the nonce), a
-- token of the other provider, no email.
select is(test.error_of($$select api.auth_apple_login(null, '{}', '{"id_token": "x.y.z", "nonce": "n"}')$$), 'PT400 invalid_field',
          'no verified identity is 400 invalid_field');
select is(test.error_of($$select api.auth_apple_login(null, pg_temp.p('apple', 's', 'a@example.com'), '{"id_token": "x.y.z"}')$$),
          'PT400 invalid_field', 'Apple without a nonce is 400 invalid_field');
select is(test.error_of($$select api.auth_apple_login(null, pg_temp.p('google', 's', 'a@example.com'), '{"id_token": "x", "nonce": "n"}')$$),
          'PT401 identity_token_wrong_issuer', 'a Google identity at /auth/apple is 401 identity_token_wrong_issuer');
select is(test.error_of($$select api.auth_google_login(null, pg_temp.p('google', 's', 'a@example.com'), '{"id_token": "x", "extra": 1}')$$),
          'PT400 invalid_field', 'an unknown key is 400 invalid_field');
select is(test.answer_of($$select api.auth_google_login(null, pg_temp.p('google', 'g-none', null), '{"id_token": "x"}')$$),
          'PT400 identity_email_missing', 'no email is 400 identity_email_missing');
select is(test.error_of($$select api.me_identities_create(test.token('bo'), pg_temp.p('apple', 's', 'a@example.com'),
                                                          '{"provider": "apple", "id_token": "x.y.z"}')$$),
          'PT400 invalid_field', 'linking Apple needs its nonce');

-- DELETE /me without a password: a fresh token of a linked identity proves the account.
select is(test.answer_of($$select api.me_delete(test.token('bo'), pg_temp.p('google', 'g-ada', 'ada@example.com'),
                                                '{"provider": "google", "id_token": "x.y.z"}')$$),
          'PT403 identity_not_linked', 'DELETE /me with another account''s identity is 403 identity_not_linked');
select is(test.error_of($$select api.me_delete(test.token('bo'), '{}', '{}')$$), 'PT400 invalid_field',
          '... with neither a password nor a token, 400 invalid_field');
select is(test.error_of($$select api.me_delete(test.token('bo'), pg_temp.p('apple', 's', 'a@example.com'),
                                               '{"provider": "apple", "id_token": "x.y.z"}')$$),
          'PT400 invalid_field', '... Apple''s without its nonce, 400 invalid_field');
select is((api.me_delete((pg_temp.apple('001.abc', 'x7q@privaterelay.appleid.com')).body ->> 'token',
                         pg_temp.p('apple', '001.abc', 'x7q@privaterelay.appleid.com'),
                         '{"provider": "apple", "id_token": "x.y.z", "nonce": "n"}')).code, null,
          'an account made by Apple deletes itself with a fresh Apple token');
select is((select count(*)::integer from app.users where email = 'x7q@privaterelay.appleid.com'), 0, '... and is erased');

-- Erasure: the identities go, the Apple refresh token is queued (naming no account).
select api.erase_account(test.uid('ada'), null);
select is((select count(*)::integer from app.user_identities where user_id = test.uid('ada')), 0, 'erasure deletes the identities');
select is((select array_agg(refresh_token order by id) from app.apple_revocations), array['rt-1', 'rt-2', 'rt-ada'],
          '... and queues the Apple refresh token for revocation');

-- The sender's claim and settle.
select is(jsonb_array_length(api.apple_revocations_claim(10)), 3, 'the sender claims the due revocations');
select is(api.apple_revocations_settle((select jsonb_agg(jsonb_build_object('id', id, 'outcome',
                                                         case refresh_token when 'rt-1' then 'sent' else 'retry' end, 'error', '503'))
                                        from app.apple_revocations)),
          '{"sent": 1, "retried": 2, "dropped": 0, "failed": 0}'::jsonb, '... and settles them: sent goes, retry waits');
select * from finish();
rollback;
