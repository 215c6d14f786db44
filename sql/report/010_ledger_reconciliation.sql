-- Users whose cached balance differs from the sum of their ledger: the archived totals
-- (app.coin_ledger_archive_totals, 0050) and the live entries. Must always be empty: the
-- balance moves only through the ledger trigger, in the same transaction, and the archive moves
-- an entry into the totals in the transaction that deletes it.
create view report.ledger_reconciliation as
select u.id as user_id,
       u.balance,
       coalesce(l.ledger_sum, 0) as ledger_sum,
       u.balance - coalesce(l.ledger_sum, 0) as difference
from app.users u
left join (select e.user_id, sum(e.amount)::bigint as ledger_sum
           from (select c.user_id, c.amount::bigint as amount from app.coin_ledger c
                 union all
                 select a.user_id, a.coins from app.coin_ledger_archive_totals a) e
           group by e.user_id) l on l.user_id = u.id
where u.balance <> coalesce(l.ledger_sum, 0);
comment on view report.ledger_reconciliation is
    'One row per user whose cached balance differs from their ledger sum (archived totals plus live entries); must stay '
    'empty. Scans the live ledger once (hash aggregate over coin_ledger_user_time); run it off-peak at scale.';
