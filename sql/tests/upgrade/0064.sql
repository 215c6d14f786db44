-- After 0064: the registries hold what the checks named, so the checks were not written again
-- and stay validated over the rows of before; a value added as a row (in a transaction rolled
-- back here, so the schema stays the fresh one's) is written NOT VALID beside those rows, and
-- an event, an entry and a mail of it are taken.
do $$
begin
    if (select count(*) from pg_constraint c
        where c.conname in ('event_type_check', 'events_check', 'coin_ledger_entry_check', 'outgoing_mail_kind_check')
          and not c.convalidated) <> 0 then
        raise exception 'a check was written again by 0064';
    end if;
end
$$;
begin;
insert into app.event_types (type, broadcast, description) values ('upgrade.announced', true, 'An upgrade test''s broadcast.');
insert into app.ledger_entries (entry, description) values ('upgrade_bonus', 'An upgrade test''s entry.');
insert into app.mail_kinds (kind, description) values ('upgrade_notice', 'An upgrade test''s kind.');
insert into app.events (user_id, type) values (null, 'upgrade.announced');
insert into app.coin_ledger (user_id, entry, amount, reason) select u.id, 'upgrade_bonus', 1, 'upgrade' from app.users u where u.deleted_at is null limit 1;
insert into app.outgoing_mail (recipient, subject, body, kind) values ('upgrade-registry@example.com', 's', 'b', 'upgrade_notice');
do $$
begin
    if not exists (select from app.events where type = 'upgrade.announced' and user_id is null)
       or not exists (select from app.coin_ledger where entry = 'upgrade_bonus')
       or not exists (select from app.outgoing_mail where kind = 'upgrade_notice') then
        raise exception 'a new registry value was not written beside the old rows';
    end if;
end
$$;
rollback;
