-- Data present when 0016 arrives (its backfill links queued reset requests to the account
-- holding their email): a request the mailer has not taken yet, for a known and an unknown email.
insert into app.password_reset_requests (email) values ('second@example.com'), ('nobody@example.com');
