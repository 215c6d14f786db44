-- Who may send a gift (2026-12-06, docs/gifts.md "Who may send"): a verified email and an
-- account at least app.gift_settings.min_sender_account_age (7 days) old; anyone else is 403
-- gift_sender_not_eligible and nothing is written. Times come from the database's now().
begin;
select plan(15);
select test.new_user(name) from unnest(array['ann', 'bob', 'new', 'unv']) as name;
create function pg_temp.befriend(a text, b text) returns void language sql as $$
    select api.friend_requests_create(test.token(a), '{}', jsonb_build_object('email', b || '@example.com'));
    select api.friend_requests_create(test.token(b), '{}', jsonb_build_object('email', a || '@example.com'));
$$;
select pg_temp.befriend(name, 'bob') from unnest(array['ann', 'new', 'unv']) as name;
select app.grant_coins(test.uid(name), 500, 'test') from unnest(array['ann', 'new', 'unv']) as name;
create function pg_temp.send(who text) returns api.reply language sql as $$
    select api.gifts_create(test.token(who), '{}', jsonb_build_object('to', test.uid('bob'), 'coins', 50))
$$;
create function pg_temp.written() returns bigint language sql as $$
    select (select count(*) from app.gifts) + (select count(*) from app.coin_ledger where entry = 'gift')
$$;
-- The extra members of the refusal (api.fail's HINT).
create function pg_temp.extra_of(who text) returns jsonb language plpgsql as $$
declare
    v_hint text;
begin
    perform pg_temp.send(who);
    return null;
exception when others then
    get stacked diagnostics v_hint = pg_exception_hint;
    return v_hint::jsonb;
end
$$;
create temp table before as select pg_temp.written() as n, (select balance from app.users where id = test.uid('new')) as balance;

select is((select min_sender_account_age from app.gift_settings), interval '7 days', 'an account sends gifts from 7 days old');

-- Unverified (an old account that never confirmed its mail): refused, whatever its age.
update app.users set email_verified_at = null where id = test.uid('unv');
select is(test.answer_of($$ select pg_temp.send('unv') $$), 'PT403 gift_sender_not_eligible',
          'an unverified sender: 403 gift_sender_not_eligible');
select is(test.error_of($$ select api.gifts_create(test.token('unv'), '{}', jsonb_build_object('to', test.uid('bob'), 'item_id', test.item('Pip the Fox'))) $$),
          'PT403 gift_sender_not_eligible', '... an item gift too');
select is(pg_temp.extra_of('unv') ->> 'email_verified', 'false', '... saying the email is not verified');

-- Verified, but made less than 7 days ago: refused, saying when it is old enough.
select test.made_ago('new', interval '7 days' - interval '1 second');
select is(test.answer_of($$ select pg_temp.send('new') $$), 'PT403 gift_sender_not_eligible',
          'a verified sender whose account is a second short of 7 days old: 403 gift_sender_not_eligible');
select is(pg_temp.extra_of('new'), jsonb_build_object('email_verified', true,
          'account_old_enough_at', api.iso((select created_at from app.users where id = test.uid('new')) + interval '7 days')),
          '... saying when it is old enough');
select is(pg_temp.written(), (select n from before), '... and nothing was written (no gift, no hold)');
select is((select balance from app.users where id = test.uid('new')), (select balance from before), '... nor any coin moved');
select is(test.answer_of($$ select pg_temp.send('ann') $$), 'ok', 'an account of a year, verified: the gift goes');

-- At exactly 7 days it may.
select test.made_ago('new', interval '7 days');
select is((pg_temp.send('new')).body -> 'gift' ->> 'status', 'pending', 'the account exactly 7 days old: the gift goes');
select is((select balance from app.users where id = test.uid('new')), (select balance - 50 from before), '... paid');

-- A DBA's setting is the rule: 0 lets any verified account send, never an unverified one.
update app.gift_settings set min_sender_account_age = interval '0';
select test.made_ago('new', interval '0');
select is((pg_temp.send('new')).body -> 'gift' ->> 'status', 'pending', 'min_sender_account_age 0: a new verified account sends');
select is(test.answer_of($$ select pg_temp.send('unv') $$), 'PT403 gift_sender_not_eligible', '... an unverified one still does not');
select throws_ok($$ update app.gift_settings set min_sender_account_age = interval '-1 day' $$, '23514', null,
                 'min_sender_account_age cannot be negative');
select is_empty($$ select * from report.ledger_reconciliation $$, 'every balance is its ledger''s sum');

select * from finish();
rollback;
