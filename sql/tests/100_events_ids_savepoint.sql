-- Event ids within one transaction (app.next_event_id, 0033: the block is read once per
-- transaction into transaction-local settings): a rolled-back savepoint gives its ids again,
-- to the rows written after it, so the ids stay unique and increasing; a new transaction starts
-- a new block.
begin;
select plan(4);
select test.new_user('ann');

select app.grant_coins(test.uid('ann'), 5, 'test');
create temp table kept as select max(e.id) as id from app.events e where e.user_id = test.uid('ann');
savepoint before_more;
select app.grant_coins(test.uid('ann'), 5, 'test');
select app.grant_coins(test.uid('ann'), 5, 'test');
rollback to savepoint before_more;
select app.grant_coins(test.uid('ann'), 5, 'test');
select is((select array_agg(e.id order by e.id) from app.events e where e.user_id = test.uid('ann') and e.id > (select id from kept)),
          array[(select id + 1 from kept)],
          'after a rolled-back savepoint the next event takes the id after the last one kept');
select is((select e.payload ->> 'balance' from app.events e where e.user_id = test.uid('ann') order by e.id desc limit 1),
          (select u.balance::text from app.users u where u.id = test.uid('ann')), '... and is the one written after the rollback');
select is(test.error_of($$ select app.grant_coins(test.uid('ann'), 5, 'test') $$), 'ok',
          'a further event is written (no duplicate id)');
select cmp_ok(current_setting('focus.event_next')::bigint, '=',
              (select max(e.id) + 1 from app.events e where e.created_at = now()),
              'the next id kept for this transaction is one past its highest');

select * from finish();
rollback;
