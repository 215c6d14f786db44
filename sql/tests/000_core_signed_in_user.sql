-- The signed-in user for the server's log line: api.authenticate sets focus.user_id for the
-- transaction, through the endpoints' own SET search_path; the server's statement reads it
-- after the endpoint (Route.statement); a raised problem carries it in its COLUMN field
-- (api.fail); a keyed replay sets it without running the endpoint; public endpoints and
-- tokens that do not sign in leave it unset. Each case starts with the setting cleared, as
-- each request's transaction does.
begin;
select plan(14);
select test.new_user(name) from unnest(array['ann', 'sam', 'leo']) as name;
select app.grant_coins(test.uid('ann'), 1000, 'test');

-- The server's statement for a JSON route, with what follows its reply's columns (Route.swift).
create function pg_temp.user_after(call text) returns text language plpgsql as $$
declare
    v_user text;
begin
    perform set_config('focus.user_id', '', true);
    execute format('select nullif(current_setting(''focus.user_id'', true), '''') from %s', call) into v_user;
    return coalesce(v_user, '-');
end
$$;
-- A raised problem's state and the user its COLUMN field names ('-': none).
create function pg_temp.raised(call text) returns text language plpgsql as $$
declare
    v_state text;
    v_column text;
begin
    perform set_config('focus.user_id', '', true);
    execute format('select * from %s', call);
    return 'no error';
exception when others then
    get stacked diagnostics v_state = returned_sqlstate, v_column = column_name;
    return v_state || ' ' || coalesce(nullif(v_column, ''), '-');
end
$$;

select set_config('focus.user_id', '', true);
select api.me_get(test.token('ann'), '{}', '{}');
select is(current_setting('focus.user_id', true), test.uid('ann')::text,
          'an endpoint''s api.authenticate leaves its user set past the endpoint''s own SET search_path');
select is(pg_temp.user_after(format('api.me_get(%L, %L, %L)', test.token('ann'), '{}', '{}')), test.uid('ann')::text,
          'the server''s statement reads it after the endpoint ran (GET /me)');
select is(pg_temp.user_after(format('api.me_get(%L, api.use_language(%L), %L)', test.token('ann'), '{"language": "en"}', '{}')),
          test.uid('ann')::text, '... and through api.use_language, as a localized route sends it');
select is(pg_temp.user_after(format('api.shop_items_list(null, %L, %L)', '{}', '{}')), '-',
          'a public endpoint sets no user');
select is(pg_temp.user_after(format('api.shop_items_list(%L, %L, %L)', test.token('ann'), '{}', '{}')), '-',
          '... not even given a valid token (it ignores it: the shared cache keeps its answers for everyone)');
select is(pg_temp.user_after(format('api.auth_login(null, %L, %L)', '{}', '{"email": "ann@example.com", "password": "wrong horse"}')), '-',
          'a sign-in is not a signed-in request: no user, whatever it answers');

select is(pg_temp.raised(format('api.me_get(%L, %L, %L)', 'made-up-token', '{}', '{}')), 'PT401 -',
          'an unknown token raises 401 naming no user');
select is(pg_temp.raised(format('api.focus_sessions_finish(%L, %L, %L)', test.token('ann'),
                                '{"id": "00000000-0000-4000-8000-000000000001"}', '{}')),
          'PT404 ' || test.uid('ann'), 'a problem raised after signing in names the user in COLUMN');
select is(pg_temp.raised(format('api.me_update(%L, %L, %L)', test.token('ann'), '{}', '{"no_such_field": 1}')),
          'PT400 ' || test.uid('ann'), '... a refused body too');
insert into app.suspensions (user_id, until) values (test.uid('sam'), now() + interval '1 day');
select is(pg_temp.raised(format('api.me_get(%L, %L, %L)', test.token('sam'), '{}', '{}')), 'PT403 ' || test.uid('sam'),
          'a suspended account''s 403 names its user: the token was valid');
select is(pg_temp.raised(format('api.me_get(%L, %L, %L)', test.token('ann'), '{}', '{}')), 'no error',
          '(the helper sees a call that does not raise)');

-- Keyed writes: api.idempotent runs the endpoint, or replays its stored answer without it.
create function pg_temp.k(key text) returns jsonb language sql as
$$ select jsonb_build_object('idempotency_key', key, 'seal_key', repeat('s', 32)) $$;
select is(pg_temp.user_after(format('api.idempotent(%L, %L, %L, %L)', 'api.shop_purchases_create', test.token('ann'), pg_temp.k('buy-1'),
                                    jsonb_build_object('item_id', test.item('Mochi the Cat')))),
          test.uid('ann')::text, 'a keyed write names its user');
select is(pg_temp.user_after(format('api.idempotent(%L, %L, %L, %L)', 'api.shop_purchases_create', test.token('ann'), pg_temp.k('buy-1'),
                                    jsonb_build_object('item_id', test.item('Mochi the Cat')))),
          test.uid('ann')::text, 'its replay names its user too, though the endpoint does not run');
-- leo logs out after a keyed write: the retry replays (002_idempotency.sql) but signs no one in.
create temporary table leo_token on commit drop as select test.token('leo') as token;
select api.idempotent('api.focus_sessions_start', (select token from leo_token), pg_temp.k('start-1'), '{"planned_minutes": 25}');
select api.auth_logout((select token from leo_token), '{}', '{}');
select is(pg_temp.user_after(format('api.idempotent(%L, %L, %L, %L)', 'api.focus_sessions_start', (select token from leo_token),
                                    pg_temp.k('start-1'), '{"planned_minutes": 25}')),
          '-', 'a replay for a token that no longer signs in names no user');

select * from finish();
rollback;
