-- app.backfill_achievement grants the whole set at once (2026-12-01): on a mixed fixture it
-- writes what granting person by person wrote, the same grants, ledger rows (in the same
-- order), balances, events and transaction note, and answers the same count. The former
-- function's code is kept here (pg_temp.before, over app.grant_achievement); it runs first
-- under a savepoint, its outcome is kept in a psql variable, then it is rolled back and the
-- set-based one runs on the same rows. The fixture: people who qualify, with and without a live
-- token (their own devices hear it or not), friends of each other (each hears the other's) or of
-- someone who does not qualify, a pending request (no event), a deleted account and a holder
-- (nothing), for an achievement with a reward and one without.
begin;
select plan(10);
select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend('ann', 'bob');
select pg_temp.befriend('ann', 'cat');
select pg_temp.befriend('fay', 'gus');
select api.friend_requests_create(test.token('bob'), '{}', '{"email": "gus@example.com"}');  -- pending: gus hears nothing of bob
-- Sessions: ann 3, bob 2, cat 1, dan 2 (then deleted), eve 2 (holds it already), fay 2, gus 0.
select test.session(s.name, test.day_start(s.days_ago), 15)
from (values ('ann', 1), ('ann', 2), ('ann', 3), ('bob', 1), ('bob', 2), ('cat', 1), ('dan', 1), ('dan', 2),
             ('eve', 1), ('eve', 2), ('fay', 1), ('fay', 2)) as s (name, days_ago);
update app.auth_tokens set revoked_at = now() where user_id = test.uid('bob');  -- bob: no live device
select api.erase_account(test.uid('dan'), null);
insert into app.achievements (code, name, description, kind, threshold, reward_coins, sort_order)
values ('two_sessions', 'Twice', 'Finish two focus sessions.', 'sessions_completed', 2, 5, 15),
       ('two_friends', 'Company', 'Have two friends.', 'friends', 2, 0, 16);
insert into app.user_achievements (user_id, achievement_code) values (test.uid('eve'), 'two_sessions');
create temp table mark as select (select max(id) from app.events) as event_id, (select max(id) from app.coin_ledger) as ledger_id;

-- The former backfill, as it was before 2026-12-01 (but for its name).
create function pg_temp.before(code text)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_kind text;
    v_target integer;
    v_user_id uuid;
    v_granted integer := 0;
begin
    select a.kind, app.achievement_target(a.kind, a.threshold) into v_kind, v_target
    from app.achievements a where a.code = before.code and a.active;
    if v_kind is null then
        raise exception 'no active achievement %', before.code using errcode = 'no_data_found';
    end if;
    for v_user_id in
        select u.id from app.users u
        where u.deleted_at is null
          and not exists (select from app.user_achievements ua
                          where ua.user_id = u.id and ua.achievement_code = before.code)
        order by u.id
    loop
        if app.achievement_value(v_user_id, v_kind) >= v_target
           and app.grant_achievement(v_user_id, before.code) then
            v_granted := v_granted + 1;
        end if;
    end loop;
    return v_granted;
end
$$;

-- What a backfill wrote since the mark, by this file's names: its count, the holders, the
-- ledger rows in order, the balances, the events sorted (recipient, type, who, code, balance,
-- whether a device skips them: their ids now come grouped by kind, not person by person) and
-- the transaction's note.
create function pg_temp.name(id text) returns text language sql as $$
    select coalesce((select a.name from test.accounts a where a.account -> 'user' ->> 'id' = name.id), id)
$$;
create function pg_temp.outcome(granted integer) returns jsonb language sql as $$
    select jsonb_build_object(
        'granted', granted,
        'holders', (select jsonb_agg(h order by h) from (
                        select pg_temp.name(ua.user_id::text) || ' ' || ua.achievement_code as h
                        from app.user_achievements ua where ua.achievement_code in ('two_sessions', 'two_friends')) x),
        'ledger', (select jsonb_agg(concat_ws(' ', pg_temp.name(c.user_id::text), c.entry, c.amount, c.reason, c.achievement_code) order by c.id)
                   from app.coin_ledger c where c.id > (select ledger_id from mark)),
        'balances', (select jsonb_object_agg(a.name, u.balance) from test.accounts a join app.users u on u.id = (a.account -> 'user' ->> 'id')::uuid),
        'events', (select jsonb_agg(line order by line) from (
                       select concat_ws(' ', pg_temp.name(e.user_id::text), e.type, pg_temp.name(e.payload ->> 'user_id'),
                                        e.payload ->> 'code', e.payload ->> 'balance', e.origin_token is not null) as line
                       from app.events e where e.id > (select event_id from mark)) x),
        'note', current_setting('focus.achievements_unlocked', true)::jsonb)
$$;

select set_config('focus.acting_token', '', true);  -- a DBA's session: no request acts (the calls above set it)
savepoint before;
select pg_temp.outcome(pg_temp.before('two_sessions') + pg_temp.before('two_friends'))::text as before_first \gset
select pg_temp.outcome(pg_temp.before('two_sessions') + pg_temp.before('two_friends'))::text as before_again \gset
rollback to savepoint before;
create temp table outcome as select pg_temp.outcome(app.backfill_achievement('two_sessions') + app.backfill_achievement('two_friends')) as first;
alter table outcome add column again jsonb;
update outcome set again = pg_temp.outcome(app.backfill_achievement('two_sessions') + app.backfill_achievement('two_friends'));

select is((select first -> 'granted' from outcome), (:'before_first')::jsonb -> 'granted', 'the same count as before');
select is((select first -> 'granted' from outcome), '4', '... four: ann, bob, fay finished twice (not cat, gus, deleted dan, eve who holds it); ann has two friends');
select is((select first -> 'holders' from outcome), (:'before_first')::jsonb -> 'holders', 'the same holders');
select is((select first -> 'ledger' from outcome), (:'before_first')::jsonb -> 'ledger', 'the same ledger rows, in the same order');
select is((select jsonb_agg(x order by x) from outcome, jsonb_array_elements_text(first -> 'ledger') x),
          '["ann reward 5 achievement two_sessions", "bob reward 5 achievement two_sessions", "fay reward 5 achievement two_sessions"]',
          '... a reward each for two_sessions, none for two_friends (0 coins)');
select is((select first -> 'balances' from outcome), (:'before_first')::jsonb -> 'balances', 'the same balances');
select is((select first -> 'events' from outcome), (:'before_first')::jsonb -> 'events', 'the same events');
select ok((select first -> 'events' from outcome) @> '["bob achievement.unlocked ann two_sessions f", "ann achievement.unlocked bob two_sessions f", "gus achievement.unlocked fay two_sessions f", "ann achievement.unlocked ann two_sessions f"]'
          and not (select first -> 'events' from outcome) @> '["bob achievement.unlocked bob two_sessions f"]'
          and not (select first -> 'events' from outcome) @> '["gus achievement.unlocked bob two_sessions f"]',
          '... friends hear each other, ann''s other devices hear hers; bob (no live token) and gus (a request only) hear nothing of bob''s');
select is((select first -> 'note' from outcome), (:'before_first')::jsonb -> 'note', 'the same note for the transaction');
select is((select again from outcome), (:'before_again')::jsonb, 'run again: as before, nothing more');
select * from finish();
rollback;
