-- app.backfill_achievement: an achievement added later is granted, and paid, to every account
-- that already qualifies, once however often it runs; one that does not qualify, a deleted
-- account and a holder get nothing; an unknown or inactive code is an error. An inactive
-- achievement is not checked by the triggers.
begin;
select plan(11);
select test.new_user(name) from unnest(array['ann', 'bob', 'cat', 'dan']) as name;
-- Sessions written before the new achievement exists: ann 3, bob 2, cat 1, dan 2 (then deleted).
select test.session(s.name, test.day_start(s.days_ago), 15)
from (values ('ann', 1), ('ann', 2), ('ann', 3), ('bob', 1), ('bob', 2), ('cat', 1), ('dan', 1), ('dan', 2)) as s (name, days_ago);
select app.grant_coins(test.uid('dan'), 1, 'test');
select api.erase_account(test.uid('dan'), null);

insert into app.achievements (code, name, description, kind, threshold, reward_coins, sort_order)
values ('two_sessions', 'Twice', 'Finish two focus sessions.', 'sessions_completed', 2, 5, 15);
select is((select count(*)::integer from app.user_achievements where achievement_code = 'two_sessions'), 0,
          'adding an achievement grants nothing by itself');
select test.new_events();
create temporary table balances on commit drop as select id, balance from app.users;
select is(app.backfill_achievement('two_sessions'), 2, 'the backfill grants it to the two who qualify');
select is((select string_agg(a.name, ',' order by a.name) from app.user_achievements ua
           join test.accounts a on (a.account -> 'user' ->> 'id')::uuid = ua.user_id
           where ua.achievement_code = 'two_sessions'), 'ann,bob', 'ann (3) and bob (2); not cat (1), not deleted dan');
select is((select string_agg(a.name || ' ' || (u.balance - b.balance), ',' order by a.name)
           from app.users u join balances b on b.id = u.id join test.accounts a on (a.account -> 'user' ->> 'id')::uuid = u.id),
          'ann 5,bob 5,cat 0,dan 0', 'each is paid the reward, through the ledger');
select is((select count(*)::integer from app.coin_ledger c where c.entry = 'reward' and c.achievement_code = 'two_sessions'), 2,
          'two reward rows');
select is((select count(*)::integer from unnest(test.new_events()) e where e ~ 'achievement\.unlocked'), 2,
          'each hears it (no friends here)');
select is(app.backfill_achievement('two_sessions'), 0, 'run again: nothing more');
select is((select count(*)::integer from app.coin_ledger c where c.entry = 'reward' and c.achievement_code = 'two_sessions'), 2,
          'and nothing paid twice');

select throws_ok($$ select app.backfill_achievement('no_such') $$, 'P0002', 'no active achievement no_such', 'an unknown code is an error');
update app.achievements set active = false where code = 'ten_hours';
select throws_ok($$ select app.backfill_achievement('ten_hours') $$, 'P0002', 'no active achievement ten_hours',
                 'an inactive one is an error');
select test.session('cat', test.day_start(4), 600);
select is((select count(*)::integer from app.user_achievements where achievement_code = 'ten_hours'), 0,
          'an inactive achievement is not checked: cat''s ten hours unlock nothing');

select * from finish();
rollback;
