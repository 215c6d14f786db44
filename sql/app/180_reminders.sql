-- Reminders: pushes (or mails) no one's action sends: a streak at risk, today's goal reached, a
-- friend request still unanswered, a room invite. Bound in 0090_reminders.sql; docs/push.md,
-- "Reminders". The live definitions: loaded on every migrate (create or replace), see
-- sql/app/README.md.

-- The instant of the person's evening (settings.push.evening, 19:00 by default) on local `day`,
-- in their time zone now.
create or replace function app.reminder_evening(p_user_id uuid, p_day date)
returns timestamptz
language sql
stable
set search_path = public, pg_temp
as $$
    select (p_day + coalesce(s.evening, time '19:00')) at time zone coalesce(u.time_zone, 'UTC')
    from app.users u left join app.push_settings s on s.user_id = u.id
    where u.id = p_user_id
$$;

-- Sends each candidate reminder (the i-th user, type, subject and data of the arrays) once:
-- one statement for all of them. A candidate goes when its type is not muted, the person can
-- be reached (a push token of a live sign-in; else a verified address and
-- settings.push.mail_reminders), their local day has not already got this type and subject
-- (app.reminders' unique key: a second call sends nothing) and fewer than
-- app.reminder_limits.daily_cap reminders (candidates of one call in their order). Each sent is
-- one app.reminders row and either one app.push_outbox row per push token (send_after: the end
-- of the person's quiet hours when inside them, app.push_send_after) or one mail of kind
-- reminder in their language (app.language_for, English when it has no text), held until the
-- same time. data: the push's ids; its user_id names the actor whose display name is the text's
-- argument. Returns the number sent; what is muted, unreachable, capped or already sent is
-- dropped, never retried.
create or replace function app.reminders_deliver(p_users uuid[], p_types text[], p_subjects text[], p_data jsonb[])
returns integer
language plpgsql
security definer
set search_path = public, pg_temp
as $$
declare
    v_sent integer;
begin
    with cand as (
        select c.user_id, c.type, coalesce(c.subject, '') as subject, coalesce(c.data, '{}') as data, c.ord,
               u.email, u.locale, (now() at time zone coalesce(u.time_zone, 'UTC'))::date as local_day,
               t.live is not null as has_push,
               coalesce(s.mail_reminders, false) and u.email_verified_at is not null as has_mail
        from unnest(p_users, p_types, p_subjects, p_data) with ordinality as c(user_id, type, subject, data, ord)
        -- Each lookup a lateral subquery with limit 1: a probe of the primary key per candidate,
        -- never a hash join that reads every account, token or setting (measured at a million
        -- people: docs/performance.md, "Reminders at a million people").
        cross join lateral (select x.* from app.users x where x.id = c.user_id and x.deleted_at is null limit 1) u
        left join lateral (select x.* from app.push_settings x where x.user_id = c.user_id limit 1) s on true
        left join lateral (select true as live from app.push_tokens p join app.auth_tokens a on a.id = p.auth_token_id
                           where p.user_id = c.user_id and a.revoked_at is null and a.expires_at > now() limit 1) t on true
        where not (c.type = any (coalesce(s.muted, '{}')))
    ),
    ranked as (
        select c.*, row_number() over (partition by c.user_id order by c.ord) as n,
               (select count(*) from app.reminders r where r.user_id = c.user_id and r.local_day = c.local_day) as already
        from cand c
        left join lateral (select true as hit from app.reminders r
                           where r.user_id = c.user_id and r.local_day = c.local_day and r.type = c.type
                             and r.subject = c.subject
                           limit 1) already_sent on true
        where (c.has_push or c.has_mail) and already_sent.hit is null
    ),
    sent as (
        insert into app.reminders (user_id, local_day, type, subject, channel)
        select r.user_id, r.local_day, r.type, r.subject, case when r.has_push then 'push' else 'mail' end
        from ranked r
        where r.already + r.n <= (select l.daily_cap from app.reminder_limits l)
        order by r.user_id, r.ord
        on conflict do nothing
        returning id, user_id, type, subject, channel
    ),
    pushes as (
        insert into app.push_outbox (token, event_id, reminder_id, type, data, send_after)
        select p.token, null, s.id, s.type, c.data, app.push_send_after(s.user_id, now())
        from sent s
        join cand c on c.user_id = s.user_id and c.type = s.type and c.subject = s.subject
        join app.push_tokens p on p.user_id = s.user_id
        join app.auth_tokens a on a.id = p.auth_token_id and a.revoked_at is null and a.expires_at > now()
        where s.channel = 'push'
        returning 1
    ),
    mails as (
        insert into app.outgoing_mail (recipient, user_id, subject, body, kind, params, next_attempt_at)
        select c.email, s.user_id, t.title, t.body, 'reminder', jsonb_build_object('title', t.title, 'body', t.body),
               app.push_send_after(s.user_id, now())
        from sent s
        join cand c on c.user_id = s.user_id and c.type = s.type and c.subject = s.subject
        cross join lateral (
            select x.title,
                   replace(x.body, '{name}', coalesce((select u.display_name from app.users u
                                                       where u.id = (c.data ->> 'user_id')::uuid), 'Deleted user')) as body
            from app.reminder_texts x
            where x.type = s.type and x.language in (app.language_for(c.locale), 'en')
            order by x.language = 'en'
            limit 1) t
        where s.channel = 'mail'
        returning 1
    )
    select count(*)::integer into v_sent from sent;
    return v_sent;
end
$$;
comment on function app.reminders_deliver(uuid[], text[], text[], jsonb[]) is
    'Sends each candidate reminder once (app.reminders'' unique key), unless muted, unreachable or past the daily cap: '
    'pushes to every live token (after quiet hours) or a mail when allowed. Returns how many were sent.';

-- One pass of the reminders job over at most `batch` due rows of app.reminder_schedule (the
-- index on due_at; rows another pass holds are skipped): decides each, sends the ones that hold
-- (app.reminders_deliver, one call), then moves or deletes each row. Also deletes at most
-- `batch` reminders older than app.reminder_limits.kept.
--   streak_at_risk (due at the evening after the last session's day): sent when no session
--   with minutes ended today (local), yesterday kept the streak (a session or a freeze) and no
--   freeze is held (a held one would cover today: then the row moves to the next evening);
--   goal_reached (due when a session ends today): sent when today's minutes reach the goal;
--   friend_request (due a day after a request): one reminder naming the oldest pending
--   request older than a day not reminded of, all of those then count as reminded; the row
--   moves to the next one's day or goes.
-- Returns the rows decided, and whether the batch was full (more may be due).
create or replace function app.reminders_pass(p_batch integer)
returns table (result integer, more boolean)
language plpgsql
security definer
set search_path = public, pg_temp
as $$
declare
    v_limits app.reminder_limits;
    v_users uuid[];
    v_types text[];
    v_count integer;
    v_sent integer;
begin
    select * into v_limits from app.reminder_limits;
    delete from app.reminders r
    where r.id in (select x.id from app.reminders x where x.created_at < now() - v_limits.kept order by x.created_at limit p_batch);

    select coalesce(array_agg(d.user_id), '{}'), coalesce(array_agg(d.type), '{}') into v_users, v_types
    from (select s.user_id, s.type from app.reminder_schedule s
          where s.due_at <= now()
          order by s.due_at
          limit p_batch
          for update skip locked) d;
    v_count := cardinality(v_users);
    if v_count = 0 then
        return query select 0, false;
        return;
    end if;

    -- The freezes due first (app.apply_streak_freezes: only for people who hold one), so a day
    -- already missed is covered before today is judged.
    perform app.apply_streak_freezes(d.user_id)
    from unnest(v_users, v_types) as d(user_id, type)
    where d.type = 'reminder.streak_at_risk'
      and exists (select from app.streak_freezes f where f.user_id = d.user_id and f.slot is not null);

    -- One statement: each due row decided (send, subject, data; next_due: when to look again,
    -- null to delete the row), the ones to send sent in one call, the rows moved or deleted.
    with due as materialized (
        select d.user_id, d.type, s.seen_until, z.zone, (now() at time zone z.zone)::date as today,
               ((now() at time zone z.zone)::date)::timestamp at time zone z.zone as today_start,
               ((now() at time zone z.zone)::date - 1)::timestamp at time zone z.zone as yesterday_start,
               u.daily_goal_minutes
        from unnest(v_users, v_types) as d(user_id, type)
        -- Probes by primary key, never a join that reads every row (see app.reminders_deliver).
        cross join lateral (select x.seen_until from app.reminder_schedule x
                            where x.user_id = d.user_id and x.type = d.type limit 1) s
        cross join lateral (select x.time_zone, x.daily_goal_minutes from app.users x where x.id = d.user_id limit 1) u
        cross join lateral (select coalesce(u.time_zone, 'UTC') as zone) z
    ),
    streak as materialized (
        select d.user_id, d.type, d.today,
               exists (select from app.focus_sessions f where f.user_id = d.user_id and f.minutes > 0
                       and f.ended_at >= d.today_start) as today_counted,
               exists (select from app.focus_sessions f where f.user_id = d.user_id and f.minutes > 0
                       and f.ended_at >= d.yesterday_start and f.ended_at < d.today_start)
               or exists (select from app.streak_freezes f where f.user_id = d.user_id and f.covered_day = d.today - 1)
                   as yesterday_kept,
               exists (select from app.streak_freezes f where f.user_id = d.user_id and f.slot is not null) as held
        from due d where d.type = 'reminder.streak_at_risk'
    ),
    friend as materialized (
        select d.user_id, d.type, d.seen_until, w.oldest, w.asker, w.newest_old
        from due d
        cross join lateral (
            select (array_agg(f.id order by f.created_at, f.id))[1] as oldest,
                   (array_agg(f.requested_by order by f.created_at, f.id))[1] as asker,
                   max(f.created_at) as newest_old
            from app.friendships f
            where f.status = 'pending' and f.requested_by <> d.user_id
              and d.user_id in (f.user_low, f.user_high)
              and f.created_at <= now() - v_limits.friend_request_after
              and f.created_at > coalesce(d.seen_until, '-infinity')) w
        where d.type = 'reminder.friend_request'
    ),
    decided as materialized (
        select s.user_id, s.type, not s.today_counted and s.yesterday_kept and not s.held as send, '' as subject,
               '{}'::jsonb as data,
               case when not s.today_counted and s.yesterday_kept and s.held
                    then app.reminder_evening(s.user_id, s.today + 1) end as next_due,
               null::timestamptz as seen_until
        from streak s
        union all
        select d.user_id, d.type,
               coalesce((select sum(f.minutes) from app.focus_sessions f
                         where f.user_id = d.user_id and f.ended_at >= d.today_start and f.minutes > 0), 0)
               >= coalesce(d.daily_goal_minutes, 2147483647),
               '', '{}', null, null
        from due d where d.type = 'reminder.goal_reached'
        union all
        select f.user_id, f.type, f.oldest is not null, coalesce(f.oldest::text, ''),
               jsonb_build_object('request_id', f.oldest, 'user_id', f.asker),
               (select min(x.created_at) + v_limits.friend_request_after
                from app.friendships x
                where x.status = 'pending' and x.requested_by <> f.user_id
                  and f.user_id in (x.user_low, x.user_high)
                  and x.created_at > coalesce(f.newest_old, f.seen_until, '-infinity')),
               coalesce(f.newest_old, f.seen_until)
        from friend f
    ),
    sent as (
        select app.reminders_deliver(array_agg(r.user_id order by r.user_id, r.type), array_agg(r.type order by r.user_id, r.type),
                                     array_agg(r.subject order by r.user_id, r.type), array_agg(r.data order by r.user_id, r.type)) as n
        from decided r
        where r.send
    ),
    moved as (
        update app.reminder_schedule s
        set due_at = r.next_due, seen_until = coalesce(r.seen_until, s.seen_until)
        from decided r
        where s.user_id = any (array(select x.user_id from decided x where x.next_due is not null))
          and s.user_id = r.user_id and s.type = r.type and r.next_due is not null
        returning 1
    ),
    gone as (
        delete from app.reminder_schedule s
        using decided r
        where s.user_id = any (array(select x.user_id from decided x where x.next_due is null))
          and s.user_id = r.user_id and s.type = r.type and r.next_due is null
        returning 1
    )
    select (select n from sent) into v_sent;

    raise debug 'reminders: % due rows decided, % reminders sent', v_count, v_sent;
    return query select v_count, v_count >= p_batch;
end
$$;
comment on function app.reminders_pass(integer) is
    'One pass of the reminders job over at most p_batch due rows of app.reminder_schedule: sends the reminders that '
    'hold (app.reminders_deliver), moves or deletes each row; prunes old reminders. Returns rows decided and more.';

-- After the evening or the time zone changed: the person's streak reminder is due at the new
-- evening after its day.
create or replace function app.reminder_streak_reschedule(p_user_id uuid)
returns void
language sql
set search_path = public, pg_temp
as $$
    update app.reminder_schedule s
    set due_at = app.reminder_evening(s.user_id, s.last_day + 1)
    where s.user_id = p_user_id and s.type = 'reminder.streak_at_risk' and s.last_day is not null
$$;

-- A session that ends with minutes: the streak reminder is due at the evening after its local
-- day (a later day than the one already scheduled only: an offline upload of an older session
-- changes nothing), and, when the person has a daily goal and the session ended today and
-- today's goal reminder has not gone, the goal reminder is due now. Runs as whoever writes
-- the session, hence security definer.
create or replace function app.focus_sessions_reminders()
returns trigger
language plpgsql
security definer
set search_path = public, pg_temp
as $$
declare
    v_zone text;
    v_goal integer;
    v_day date;
begin
    select coalesce(u.time_zone, 'UTC'), u.daily_goal_minutes into v_zone, v_goal from app.users u where u.id = new.user_id;
    v_day := (new.ended_at at time zone v_zone)::date;
    insert into app.reminder_schedule as s (user_id, type, due_at, last_day)
    values (new.user_id, 'reminder.streak_at_risk', app.reminder_evening(new.user_id, v_day + 1), v_day)
    on conflict (user_id, type) do update
    set due_at = excluded.due_at, last_day = excluded.last_day
    where s.last_day is null or s.last_day < excluded.last_day;
    if v_goal is not null and v_day = (now() at time zone v_zone)::date
       and not exists (select from app.reminders r where r.user_id = new.user_id and r.local_day = v_day
                       and r.type = 'reminder.goal_reached') then
        insert into app.reminder_schedule (user_id, type, due_at)
        values (new.user_id, 'reminder.goal_reached', now())
        on conflict (user_id, type) do nothing;
    end if;
    return null;
end
$$;

-- A friend request: the receiver's friend_request reminder is due friend_request_after it (or
-- earlier, when one already waits).
create or replace function app.friendships_reminders()
returns trigger
language plpgsql
security definer
set search_path = public, pg_temp
as $$
begin
    insert into app.reminder_schedule as s (user_id, type, due_at)
    values (case when new.requested_by = new.user_low then new.user_high else new.user_low end, 'reminder.friend_request',
            new.created_at + (select l.friend_request_after from app.reminder_limits l))
    on conflict (user_id, type) do update
    set due_at = least(s.due_at, excluded.due_at);
    return null;
end
$$;

-- A room invite is reminded of at once, in the invite's transaction (the host's name is the
-- argument; the room is the subject, so each room's invite goes once).
create or replace function app.room_members_reminders()
returns trigger
language plpgsql
security definer
set search_path = public, pg_temp
as $$
begin
    perform app.reminders_deliver(array[new.user_id], array['reminder.room_invite'], array[new.room_id::text],
                                  array[jsonb_build_object('room_id', r.id, 'code', r.code, 'user_id', r.host_id)])
    from app.rooms r where r.id = new.room_id;
    return null;
end
$$;
