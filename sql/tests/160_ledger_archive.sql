-- app.archive_ledger (2026-12-06): three people's entries of a year ago and of today; the old
-- ones archived in batches of three into per-person totals. Every balance, and every view that
-- reads the ledger (reconciliation, sales per item, coins per day, the counters' recount), is
-- the same before, midway and after; a batch run again once all are archived archives nothing;
-- entries after the horizon stay; the export lists the totals beside the live entries and they
-- add up to the balance; the totals are read (a wrong one shows); deletion of an account leaves
-- them tied to its tombstone, naming nobody; nothing else may delete or change an entry.
-- (app.archive_ledger_all commits, which a test's transaction cannot: its loop is this one.)
begin;
select plan(26);
select test.new_user(name, initcap(name) || ' Archivist') from unnest(array['arka', 'arkb', 'arkc']) name;
create function pg_temp.entry(name text, entry text, amount integer, days_ago integer, item text default null)
returns void language sql as $$
    insert into app.coin_ledger (user_id, entry, amount, reason, item_id, created_at)
    values (test.uid(name), entry, amount, 'archive fixture', case when item is not null then test.item(item) end, test.day_start(days_ago) + interval '1 hour');
$$;
-- A year ago and earlier: grants, two purchases of one item by two people; 100 to 150 days ago
-- (after the horizon of 200 days) and today: more.
select pg_temp.entry('arka', 'grant', 500, 400), pg_temp.entry('arkb', 'grant', 300, 380), pg_temp.entry('arkc', 'grant', 70, 370);
select pg_temp.entry('arka', 'spend', -120, 365, 'Pip the Fox'), pg_temp.entry('arkb', 'spend', -120, 364, 'Pip the Fox');
select pg_temp.entry('arka', 'grant', 15, 150), pg_temp.entry('arkb', 'grant', 25, 120), pg_temp.entry('arkc', 'grant', 35, 100);
select pg_temp.entry('arka', 'grant', 40, 0), pg_temp.entry('arkc', 'grant', 9, 0);
set constraints all immediate;  -- the day totals' deferred trigger, before anything reads them

create function pg_temp.ours() returns uuid[] language sql stable as $$
    select array[test.uid('arka'), test.uid('arkb'), test.uid('arkc')]
$$;
-- What the views show, whole, as one text each.
create function pg_temp.views() returns text language sql stable as $$
    select concat_ws(E'\n',
        (select string_agg(format('%s %s', u.id, u.balance), ',' order by u.id) from app.users u where u.id = any(pg_temp.ours())),
        (select coalesce(string_agg(r::text, ',' order by r.user_id), '') from report.ledger_reconciliation r),
        (select string_agg(s::text, ',' order by s.item_id) from report.sales_per_item s),
        (select string_agg(d::text, ',' order by d.day) from report.coin_economy_per_day d),
        (select coalesce(string_agg(c::text, ',' order by c.counter, c.key::text), '') from report.counter_reconciliation c))
$$;
create temp table seen as select pg_temp.views() as before;
select is((select count(*)::integer from report.ledger_reconciliation), 0, 'the ledger reconciles before');
select is((select count(*)::integer from report.counter_reconciliation), 0, 'the counters reconcile before');

-- Refusals.
select throws_ok($$select app.archive_ledger(test.day_start(200) + interval '1 hour', 3)$$, '22023', 'before is a UTC midnight',
                 'a horizon within a day is refused');
select throws_ok($$select app.archive_ledger(test.day_start(10), 3)$$, '22023', 'before is at least 90 days ago',
                 'a horizon within 90 days is refused');
select throws_ok($$select app.archive_ledger(test.day_start(200), 0)$$, '22023', 'batch_size is at least 1',
                 'a batch of none is refused');

-- Batches of three; the old entries of everyone in this database are taken oldest first.
create temp table old as
select count(*)::integer as entries from app.coin_ledger c where c.created_at < test.day_start(200) and c.entry <> 'bonus';
select is(app.archive_ledger(test.day_start(200), 3), least(3, (select entries from old)), 'a batch archives at most batch_size');
select is((select a.archived_before from app.ledger_archive a), test.day_start(200), 'the horizon is recorded');
select is(pg_temp.views(), (select before from seen), 'midway (interrupted): every balance and view is the same');
select is((select count(*)::integer from report.counter_reconciliation), 0, 'midway the counters reconcile');
-- Resumed, until a batch finds nothing.
create temp table runs (moved integer);
do $$
begin
    loop
        insert into runs values (app.archive_ledger(test.day_start(200), 3));
        exit when (select r.moved from runs r order by ctid desc limit 1) = 0;
    end loop;
end
$$;
select is((select sum(r.moved)::integer + 3 from runs r), (select entries from old), 'resumed, every old entry is archived once');
select is((select count(*)::integer from app.coin_ledger c where c.created_at < test.day_start(200) and c.entry <> 'bonus'), 0,
          'no old entry is left live');
select is((select array_agg(c.amount order by c.amount) from app.coin_ledger c where c.user_id = any(pg_temp.ours())),
          array[9, 15, 25, 35, 40], 'the entries after the horizon stay live');
select is((select array_agg(format('%s %s %s', a.entry, a.entries, a.coins) order by a.entry)
           from app.coin_ledger_archive_totals a where a.user_id = test.uid('arka')),
          array['grant 1 500', 'spend 1 -120'], 'per person and kind: how many and their coins');
select is(pg_temp.views(), (select before from seen), 'after: every balance and view is the same');
select is((select count(*)::integer from report.counter_reconciliation_between((test.day_start(400) at time zone 'UTC')::date, (now() at time zone 'UTC')::date)), 0,
          'the counters reconcile over a range across the horizon');

-- Run again: nothing to do, nothing changes; an earlier horizon does not lower it.
create temp table totals as select a.* from app.coin_ledger_archive_totals a;
select is(app.archive_ledger(test.day_start(200), 3), 0, 'run again once all are archived: none');
select is(app.archive_ledger(test.day_start(300), 3), 0, 'an earlier horizon: none');
select is((select a.archived_before from app.ledger_archive a), test.day_start(200), 'the horizon is not lowered');
select set_eq($$select * from app.coin_ledger_archive_totals$$, $$select * from totals$$, 'the totals are as they were');

-- The export: totals beside the live entries, adding up to the balance.
select is((select ((select sum((x ->> 'amount')::integer) from jsonb_array_elements(b -> 'ledger_archived') x)
                  + (select sum((x ->> 'amount')::integer) from jsonb_array_elements(b -> 'ledger') x))::integer
           from (select (api.me_export_get(test.token('arka'), '{}', '{}')).body as b) e),
          (select u.balance from app.users u where u.id = test.uid('arka')), 'the export''s archived and live entries add up to the balance');

-- The views read the totals: one wrong total shows in both reconciliations.
update app.coin_ledger_archive_totals set coins = coins + 1 where user_id = test.uid('arkc');
select is((select array_agg(r.difference) from report.ledger_reconciliation r), array[-1::bigint], 'a wrong total shows in the reconciliation');
select is((select array_agg(c.key ->> 'before') from report.counter_reconciliation c), array[(test.day_start(200) at time zone 'UTC')::date::text],
          'and in the counters'' recount of the days before the horizon');
update app.coin_ledger_archive_totals set coins = coins - 1 where user_id = test.uid('arkc');

-- Deletion: the totals stay with the tombstone, naming nobody; the views still reconcile.
select api.me_delete(test.token('arkb'), '{}', '{"password": "correct horse"}');
select is(test.columns_holding(array['arkb@example.com', 'Arkb Archivist']), '{}', 'a deleted account''s name and email are nowhere');
select is(pg_temp.views(), (select before from seen), 'after a deletion every balance and view is the same');

-- Nobody else deletes or changes an entry.
select is(test.error_of($$delete from app.coin_ledger where user_id = test.uid('arka')$$), '23001',
          'a delete outside the archive is refused');
select is(test.error_of($$update app.coin_ledger set amount = amount where user_id = test.uid('arka')$$), '23001',
          'an update is refused');
select * from finish();
rollback;
