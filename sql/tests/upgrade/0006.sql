-- Data after 0006: a failure from an address, and a known address of a user.
insert into app.login_failures (email, client_ip) values ('early@example.com', '192.0.2.7');
insert into app.login_addresses (user_id, client_ip)
select id, '192.0.2.8' from app.users order by created_at limit 1;
