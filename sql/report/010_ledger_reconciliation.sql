-- Users whose cached balance differs from the sum of their ledger. Must always be empty:
-- the balance moves only through the ledger trigger, in the same transaction.
create view report.ledger_reconciliation as
select u.id as user_id,
       u.balance,
       coalesce(l.ledger_sum, 0) as ledger_sum,
       u.balance - coalesce(l.ledger_sum, 0) as difference
from app.users u
left join (select c.user_id, sum(c.amount) as ledger_sum
           from app.coin_ledger c
           group by c.user_id) l on l.user_id = u.id
where u.balance <> coalesce(l.ledger_sum, 0);
comment on view report.ledger_reconciliation is
    'One row per user whose cached balance differs from their ledger sum; must stay empty. '
    'Scans the ledger once (hash aggregate over coin_ledger_user_time); run it off-peak at scale.';
