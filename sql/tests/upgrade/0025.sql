-- Data after 0025: a report.created event to a moderator, a queued web deletion request, a
-- support deletion's audit row and a display name change (the history trigger writes it).
insert into app.moderators (user_id, note) values ('11111111-1111-4111-8111-111111111111', 'upgrade data')
on conflict do nothing;
insert into app.events (user_id, type, payload)
values ('11111111-1111-4111-8111-111111111111', 'report.created',
        '{"report_id": "33333333-3333-4333-8333-333333333333", "reason": "spam"}');
insert into app.account_deletion_requests (email) values ('nobody@example.com');
insert into app.account_deletions (user_id, via, reason)
values ('22222222-2222-4222-8222-222222222222', 'support', 'Upgrade data: asked by mail, identity checked');
update app.users set display_name = 'Renamed After 0025' where id = '11111111-1111-4111-8111-111111111111';
