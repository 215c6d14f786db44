-- app.outgoing_mail is partitioned by UTC day of created_at (0061): the partitions job makes the
-- days ahead, a mail of now lands in its day, and a day past the retention (30 days) is dropped
-- whole by the prune only once it holds no queued or sending mail (app.partitioned_tables
-- keep_while): unsent mail is never lost, and a day kept for it holds up no later day.
begin;
select plan(11);

-- The job runs every 10 minutes; the clock may have passed a midnight since it last did.
select ok((select result from api.job_step('partitions')) >= 0, 'the partitions job runs');
select ok((select max(p.upper) from app.partitions('app.outgoing_mail') p) >= now() + interval '3 days',
          'the partitions reach three days ahead');
select is((select count(*)::integer from app.partitions('app.outgoing_mail') p where p.is_default), 1,
          'there is one default partition');
insert into app.outgoing_mail (recipient, subject, body) values ('kim@example.com', 'now', 'hello');
select is((select tableoid::regclass::text from app.outgoing_mail where subject = 'now'),
          'app.outgoing_mail_part_' || to_char(now() at time zone 'UTC', 'YYYYMMDD'), 'a mail of now lands in its day''s partition');

-- Two days past the retention: the older holds a queued mail, the newer only sent mail.
create temporary table old_days as
select app.partition_slot(now(), interval '1 day') - interval '1 day' * d as lower, 'app.outgoing_mail_part_test' || d as name
from (values (40), (35)) v(d);
select format('create table %s (like app.outgoing_mail including defaults including constraints); '
              'alter table %1$s owner to focus_owner; '
              'alter table app.outgoing_mail attach partition %1$s for values from (%L) to (%L)',
              d.name, d.lower, d.lower + interval '1 day') as attach
from old_days d \gexec
insert into app.outgoing_mail (recipient, subject, body, created_at, state)
values ('kim@example.com', 'unsent', 'code 12345678', (select lower from old_days where name like '%40') + interval '1 hour', 'queued');
insert into app.outgoing_mail (recipient, subject, body, created_at, state, sent_at)
values ('kim@example.com', 'sent 40', '(sent)', (select lower from old_days where name like '%40') + interval '2 hours', 'sent', now()),
       ('kim@example.com', 'sent 35', '(sent)', (select lower from old_days where name like '%35') + interval '1 hour', 'sent', now());
select is((select count(*)::integer from app.outgoing_mail_part_test40), 2, 'the old mail is in its day''s partition');

update app.scheduled_jobs set next_run_at = now() - interval '1 second' where name = 'prune';
update app.scheduled_jobs set next_run_at = now() + interval '1 hour' where name <> 'prune';
select api.jobs_run();
select isnt(to_regclass('app.outgoing_mail_part_test40'), null, 'a day past the retention holding a queued mail is kept ...');
select is((select array_agg(subject order by subject) from app.outgoing_mail where recipient = 'kim@example.com' and created_at < now() - interval '30 days'),
          array['sent 40', 'unsent'], '... with all its mail');
select is(to_regclass('app.outgoing_mail_part_test35'), null, 'a later expired day with only sent mail is dropped whole');

-- Sending also keeps it; once the mail is sent, the next prune drops the day.
update app.outgoing_mail set state = 'sending', claimed_at = now() where subject = 'unsent';
select is(app.prune_personal_data(), 0, 'a day holding a mail being sent is kept');
update app.outgoing_mail set state = 'sent', sent_at = now() where subject = 'unsent';
select is(app.prune_personal_data(), 2, 'once it is sent, the prune drops the day, counting its mail');
select is(to_regclass('app.outgoing_mail_part_test40'), null, '... whole');

select * from finish();
rollback;
