-- Data after 0008: a tombstone (deleted account), a block, a report, a reset code and its mail.
insert into app.users (id, email, password_hash, display_name, deleted_at)
values ('88888888-8888-4888-8888-888888888888', null, null, 'Deleted user', now());
insert into app.blocks (blocker, blocked) values ('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222');
insert into app.user_reports (reporter, reported, reason) values ('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', 'spam');
insert into app.password_resets (user_id, digest, expires_at)
values ('22222222-2222-4222-8222-222222222222', sha256('12345678'), now() + interval '15 minutes');
insert into app.outgoing_mail (recipient, subject, body) values ('second@example.com', 'Your Focus Island password reset code', 'Your code is 12345678.');
update app.users set time_zone = 'Pacific/Kiritimati' where id = '11111111-1111-4111-8111-111111111111';
-- The same report again, still open: 0017 dismisses the older of the two before it allows one open report per pair.
insert into app.user_reports (reporter, reported, reason, created_at)
values ('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', 'harassment', now() + interval '1 second');
