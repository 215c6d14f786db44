-- The event type is checked by the domain app.event_type (0033): a type the clients do not
-- know is refused, as the table's check refused it before; the broadcast check stays the table's.
begin;
select plan(5);
select test.new_user('ann');

select is((select a.atttypid::regtype::text from pg_attribute a where a.attrelid = 'app.events'::regclass and a.attname = 'type'),
          'app.event_type', 'app.events.type is of the domain app.event_type');
select throws_ok(format($$ insert into app.events (user_id, type, payload) values (%L, 'balance.moved', '{}') $$, test.uid('ann')),
                 '23514', null, 'an unknown type is refused: 23514 check_violation');
select throws_ok(format($$ insert into app.events (user_id, type, payload) values (%L, 'catalog.changed', '{}') $$, test.uid('ann')),
                 '23514', null, 'a broadcast type for one user is refused (events_check)');
select lives_ok(format($$ insert into app.events (user_id, type, payload) values (%L, 'gift.declined', '{}') $$, test.uid('ann')),
                'a known type is written');
select is((select e.type::text from app.events e where e.user_id = test.uid('ann') order by e.id desc limit 1), 'gift.declined',
          '... and read back as text');

select * from finish();
rollback;
