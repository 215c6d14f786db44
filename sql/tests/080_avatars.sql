-- Avatars (magic bytes, who may see them) and leaderboards (ties share a rank, me outside the top).
begin;
select plan(11);
create temporary table people on commit drop as
select name, test.new_user(name || '@board.example', initcap(name)) as account
from unnest(array['amy', 'bob', 'cyd', 'eve']) as name;
create function pg_temp.token(who text) returns text language sql as $$ select account ->> 'token' from people where name = who $$;
create function pg_temp.uid(who text) returns uuid language sql as $$ select test.user_id(account) from people where name = who $$;

select is(test.error_of(format('select api.put_avatar(%L, ''{}'', %L::bytea)', pg_temp.token('amy'), '\x89504e470d0a1a0a0000000d49484452')),
          'ok', 'a PNG avatar is stored');
select is(test.error_of(format('select api.put_avatar(%L, ''{}'', %L::bytea)', pg_temp.token('amy'), '\x47494638396101')),
          'PT415 unsupported_image', 'a GIF is unsupported_image');
select is((api.avatar(pg_temp.token('amy'), jsonb_build_object('id', pg_temp.uid('amy')), '{}')).content_type, 'image/png',
          'the owner sees it as image/png');
select is(test.error_of(format('select api.avatar(%L, %L, ''{}'')', pg_temp.token('bob'), jsonb_build_object('id', pg_temp.uid('amy')))),
          'PT404 avatar_not_found', 'a stranger cannot see it');
select api.ask_friend(pg_temp.token('amy'), '{}', '{"email": "bob@board.example"}');
select api.ask_friend(pg_temp.token('bob'), '{}', '{"email": "amy@board.example"}');
select is((api.avatar(pg_temp.token('bob'), jsonb_build_object('id', pg_temp.uid('amy')), '{}')).content_type, 'image/png',
          'a friend can see it');
select is(test.error_of(format('insert into app.avatars values (%L, ''image/jpeg'', ''\x89504e47''::bytea)', pg_temp.uid('cyd'))),
          '23514', 'the table refuses bytes that are not the stated type');

-- Leaderboards: amy 30 and bob 30 minutes today, cyd 50, eve none.
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
select gen_random_uuid(), pg_temp.uid(who), 'offline', now() - make_interval(mins => m + 1), now() - interval '1 minute',
       tstzrange(now() - make_interval(mins => m + 1), now() - interval '1 minute'), m
from (values ('amy', 30), ('bob', 30), ('cyd', 50)) v(who, m);
select is((api.leaderboard(pg_temp.token('amy'), '{"period": "daily", "scope": "friends"}', '{}')).body -> 'entries' -> 0 -> 'rank',
          '1'::jsonb, 'among friends amy and bob tie for first');
select is((api.leaderboard(pg_temp.token('amy'), '{"period": "daily", "scope": "friends"}', '{}')).body -> 'entries' -> 1 -> 'rank',
          '1'::jsonb, '... sharing the rank');
select ok(((api.leaderboard(pg_temp.token('eve'), '{"period": "weekly", "scope": "global", "limit": "1"}', '{}')).body -> 'me' ->> 'rank')::integer
          > 1, 'eve, with no minutes, still gets her own rank outside a top of 1');
select is(jsonb_array_length((api.leaderboard(pg_temp.token('eve'), '{"period": "weekly", "scope": "global", "limit": "1"}', '{}')).body -> 'entries'),
          1, 'limit limits the entries');
select is(test.error_of(format('select api.leaderboard(%L, ''{"period": "yearly"}'', ''{}'')', pg_temp.token('eve'))),
          'PT400 invalid_field', 'an unknown period is invalid_field');

select * from finish();
rollback;
