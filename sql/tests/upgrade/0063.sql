-- After 0063: the rows of upgrade/0046.sql carried over into each table's partition of what came
-- before; a new mail's id follows the old ones (one identity sequence); an old key still refuses
-- its second row (app.idempotency_keys_unique), and a new one lands in the default or a day.
do $$
begin
    if (select count(*) from app.login_failures_part_before where email = 'upgrade-failure@example.com') <> 2
       or (select count(*) from app.outgoing_mail_part_before where recipient = 'upgrade-mail@example.com') <> 2
       or (select count(*) from app.idempotency_keys_part_before where scope = 'email:upgrade-key@example.com') <> 2 then
        raise exception 'the rows before the partitioning did not carry over';
    end if;
end
$$;
insert into app.outgoing_mail (recipient, subject, body) values ('upgrade-mail@example.com', 'queued after', 'hello');
do $$
begin
    if (select id from app.outgoing_mail where subject = 'queued after')
       <= (select max(m.id) from app.outgoing_mail m where m.subject <> 'queued after') then
        raise exception 'a new mail''s id does not follow the old ones';
    end if;
    begin
        insert into app.idempotency_keys (scope, key, route, request_digest)
        values ('email:upgrade-key@example.com', 'key-1', 'api.auth_login', '\x00');
        raise exception 'an old key took a second row';
    exception when unique_violation then
        null;
    end;
end
$$;
