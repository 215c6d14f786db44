-- Support deletes an account in psql with app.delete_user: the same tombstone, one audit row
-- with the reason and the DBA's login; a missing reason, an unknown or deleted account change nothing.
begin;
select plan(7);
select test.new_user(name) from unnest(array['sup', 'other']) as name;
select api.friend_requests_create(test.token('sup'), '{}', '{"email": "other@example.com"}');

select is(test.error_of(format('select app.delete_user(%L, %L)', test.uid('sup'), ' ')), '23514', 'a blank reason is refused');
select is(test.error_of(format('select app.delete_user(%L, %L)', gen_random_uuid(), 'asked by mail')), 'P0002', 'an unknown account is refused');
select is((select count(*)::integer from app.account_deletions), 0, '... and nothing is audited');
select ok(app.delete_user(test.uid('sup'), 'Asked by mail to support, identity checked') > 0, 'support deletes the account');
select is((select (email, display_name, deleted_at is not null)::text from app.users where id = test.uid('sup')),
          '(,"Deleted user",t)', 'the tombstone DELETE /me leaves');
select is((select (via, reason, deleted_by)::text from app.account_deletions where user_id = test.uid('sup')),
          '(support,"Asked by mail to support, identity checked",postgres)', 'one audit row with the reason and the login');
select is(test.error_of(format('select app.delete_user(%L, %L)', test.uid('sup'), 'again')), 'P0002', 'a deleted account cannot be deleted again');
select * from finish();
rollback;
