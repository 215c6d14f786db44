-- Idempotency-Key answers of requests with a secret (password, code) are sealed with a key only
-- the server holds: a database reader can neither open a stored sign-in nor test a password
-- guess against it; without the server's seal key such a request keeps no key at all.
begin;
select plan(8);
select test.new_user('sal');
create function pg_temp.k(key text, seal_key text) returns jsonb language sql as
$$ select jsonb_build_object('idempotency_key', key, 'client_ip', '192.0.2.1', 'seal_key', seal_key) $$;
create function pg_temp.login(key text, seal_key text, password text default 'correct horse') returns api.reply language sql as
$$ select * from api.idempotent('api.auth_login', null, pg_temp.k(key, seal_key),
                                jsonb_build_object('email', 'sal@example.com', 'password', password)) $$;
-- What a reader of app.idempotency_keys could try: a guess opens the answer, or it does not.
create function pg_temp.opens(sealed bytea, passphrase text) returns boolean language plpgsql as $$
begin
    perform pgp_sym_decrypt(sealed, passphrase);
    return true;
exception when external_routine_invocation_exception then
    return false;
end
$$;

create temporary table first on commit drop as select (pg_temp.login('in-1', repeat('k', 40))).*;
select is((select (r.status, r.body ->> 'token') from pg_temp.login('in-1', repeat('k', 40)) r),
          (select (f.status, f.body ->> 'token') from first f), 'with the server''s seal key a retried login replays its token');
select ok((select reply is null and sealed_reply is not null from app.idempotency_keys where key = 'in-1'),
          'the stored login answer is only sealed');
-- The request as api.idempotent builds it, right password included: what used to be the key.
create temporary table request on commit drop as
select jsonb_build_object('route', 'api.auth_login', 'params', '{}'::jsonb,
                          'body', jsonb_build_object('email', 'sal@example.com', 'password', 'correct horse'))::text as text;
select ok(not pg_temp.opens((select sealed_reply from app.idempotency_keys where key = 'in-1'), (select text from request)),
          'a database reader who guessed the right password cannot open the stored login (no fast password oracle)');
select ok(not pg_temp.opens((select sealed_reply from app.idempotency_keys where key = 'in-1'),
                            encode(hmac(convert_to((select text from request), 'UTF8'), convert_to(repeat('x', 40), 'UTF8'), 'sha256'), 'hex')),
          '... nor with any seal key but the server''s');
select ok(pg_temp.opens((select sealed_reply from app.idempotency_keys where key = 'in-1'),
                        encode(hmac(convert_to((select text from request), 'UTF8'), convert_to(repeat('k', 40), 'UTF8'), 'sha256'), 'hex')),
          '... which, with the right password, is what opens it');
select is(test.error_of($$ select pg_temp.login('in-1', repeat('r', 40)) $$), 'PT422 idempotency_key_reused',
          'after a restart with another seal key the retry is idempotency_key_reused (sign in with a new key)');

select is((pg_temp.login('in-2', null)).status, null, 'without a seal key a login still answers ...');
select is((select count(*)::integer from app.idempotency_keys where key = 'in-2'), 0, '... and keeps no key nor answer');

select * from finish();
rollback;
