-- Achievements: what each kind counts, the grant (row, reward, events), the checks the
-- triggers run, and the backfill. Bound in 0028_achievements.sql; the endpoints are in
-- sql/api/130_achievements.sql; docs/achievements.md says why.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- The count an achievement of `kind` compares with its target, for one person, from the tables
-- themselves (so a check, a progress bar and the backfill all read the same thing).
create or replace function app.achievement_value(user_id uuid, kind text)
returns integer
language plpgsql stable
set search_path = public, pg_temp
as $$
begin
    return case achievement_value.kind
        when 'sessions_completed' then
            (select count(*)::integer from app.user_sessions(achievement_value.user_id) s
             where s.ended_at is not null and s.minutes > 0)
        when 'minutes_focused' then
            (select coalesce(sum(s.minutes), 0)::integer from app.user_sessions(achievement_value.user_id) s
             where s.ended_at is not null)
        when 'streak_days' then
            (select st.longest_days from app.user_streak(achievement_value.user_id) st)
        when 'friends' then
            (select count(*)::integer from app.friendships f
             where achievement_value.user_id in (f.user_low, f.user_high) and f.status = 'accepted')
        when 'rooms_completed' then
            (select count(*)::integer from app.room_members m join app.rooms r on r.id = m.room_id
             where m.user_id = achievement_value.user_id and m.outcome = 'completed' and r.status = 'completed')
        when 'every_pet' then
            (select count(*)::integer from app.user_items ui join app.shop_items i on i.id = ui.item_id
             where ui.user_id = achievement_value.user_id and i.kind = 'pet' and i.active)
    end;
end
$$;

-- The count that unlocks an achievement: its threshold, or for every_pet the number of active
-- pets in the shop (at least one, so an empty shop unlocks nothing).
create or replace function app.achievement_target(kind text, threshold integer)
returns integer
language sql stable
set search_path = public, pg_temp
as $$
    select case when achievement_target.kind = 'every_pet'
                then greatest(1, (select count(*)::integer from app.shop_items i where i.kind = 'pet' and i.active))
                else achievement_target.threshold end
$$;

-- Grants one achievement to one person, at most once whatever races it: the primary key of
-- app.user_achievements lets one insert through (a concurrent one waits for it, then does
-- nothing), and only the insert that went through pays the reward (one 'reward' ledger row, a
-- unique index refusing a second), tells each friend and the person's devices but the one that
-- acted (achievement.unlocked; app.tell_own_devices: the acting device has its answer), and
-- notes the code for the answer of the request that unlocked it (api.with_achievements reads
-- it, in this transaction only, and marks the row unlocked_by that request's write, so a repeat
-- of the write answers it again). Returns whether it granted. A deleted account gets nothing.
create or replace function app.grant_achievement(user_id uuid, code text)
returns boolean
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_reward integer;
    v_code text;
    v_payload jsonb;
begin
    if exists (select from app.users u where u.id = grant_achievement.user_id and u.deleted_at is not null) then
        return false;
    end if;
    insert into app.user_achievements (user_id, achievement_code)
    values (grant_achievement.user_id, grant_achievement.code)
    on conflict do nothing
    returning achievement_code into v_code;
    if v_code is null then
        return false;
    end if;
    select a.reward_coins into v_reward from app.achievements a where a.code = v_code;
    if v_reward > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, achievement_code)
        values (grant_achievement.user_id, 'reward', v_reward, 'achievement', v_code);
    end if;
    v_payload := jsonb_build_object('user_id', grant_achievement.user_id, 'code', v_code);
    perform app.tell_own_devices(grant_achievement.user_id, 'achievement.unlocked', v_payload);
    if exists (select from app.friendships f
               where grant_achievement.user_id in (f.user_low, f.user_high) and f.status = 'accepted') then
        insert into app.events (user_id, type, payload)
        select case when f.user_low = grant_achievement.user_id then f.user_high else f.user_low end, 'achievement.unlocked', v_payload
        from app.friendships f
        where grant_achievement.user_id in (f.user_low, f.user_high) and f.status = 'accepted'
        order by 1;
    end if;
    perform set_config('focus.achievements_unlocked',
                       (coalesce(nullif(current_setting('focus.achievements_unlocked', true), ''), '[]')::jsonb
                       || jsonb_build_array(jsonb_build_object('user_id', grant_achievement.user_id, 'code', v_code)))::text,
                       true);
    return true;
end
$$;

-- Checks the active achievements of `kinds` the person does not hold yet, in catalogue order,
-- and grants each whose count reached its target. Returns how many it granted.
create or replace function app.check_achievements(user_id uuid, kinds text[])
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_code text;
    v_kind text;
    v_threshold integer;
    v_granted integer := 0;
begin
    for v_code, v_kind, v_threshold in
        select a.code, a.kind, a.threshold from app.achievements a
        where a.active and a.kind = any(check_achievements.kinds)
          and not exists (select from app.user_achievements ua
                          where ua.user_id = check_achievements.user_id and ua.achievement_code = a.code)
        order by a.sort_order, a.code
    loop
        if app.achievement_value(check_achievements.user_id, v_kind) >= app.achievement_target(v_kind, v_threshold)
           and app.grant_achievement(check_achievements.user_id, v_code) then
            v_granted := v_granted + 1;
        end if;
    end loop;
    return v_granted;
end
$$;

-- A session that ended with minutes: sessions, minutes and the streak.
create or replace function app.focus_sessions_achievements()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.check_achievements(new.user_id, array['sessions_completed', 'minutes_focused', 'streak_days']);
    return null;
end
$$;

-- An accepted friendship: both friends, the lower id first (two acceptances sharing a person
-- then take that person's rows in one order).
create or replace function app.friendships_achievements()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.check_achievements(new.user_low, array['friends']);
    perform app.check_achievements(new.user_high, array['friends']);
    return null;
end
$$;

-- An item acquired (bought, a starter): the pets.
create or replace function app.user_items_achievements()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    perform app.check_achievements(new.user_id, array['every_pet']);
    return null;
end
$$;

-- A room completed: each member who completed it, in id order.
create or replace function app.rooms_achievements()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_user_id uuid;
begin
    for v_user_id in
        select m.user_id from app.room_members m
        where m.room_id = new.id and m.state = 'joined' and m.outcome = 'completed'
        order by m.user_id
    loop
        perform app.check_achievements(v_user_id, array['rooms_completed']);
    end loop;
    return null;
end
$$;

-- The writes of granting `code` to `users` (rows of app.user_achievements this transaction
-- just inserted, so each is written once: their primary key is the guard, which outlives the
-- ledger's archive; the ledger's unique index refuses a second live reward too): one insert of
-- their rewards (the balance and balance.changed follow each row as for any ledger row); then
-- achievement.unlocked to each one's own devices (those with a live token, as
-- app.tell_own_devices) and to each one's friends. The same rows and events as
-- app.grant_achievement one by one; the events come grouped by kind (every balance, then every
-- person, then every friend, each in id order) rather than person by person. Events written:
-- at most app.backfill_event_cost(user, reward) for each.
create or replace function app.grant_achievement_set(code text, users uuid[])
returns void
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_reward integer := (select a.reward_coins from app.achievements a where a.code = grant_achievement_set.code);
    v_acting uuid := app.acting_token();
begin
    if v_reward > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, achievement_code)
        select g.id, 'reward', v_reward, 'achievement', grant_achievement_set.code
        from unnest(grant_achievement_set.users) g(id) order by g.id;
    end if;
    insert into app.events (user_id, type, payload, origin_token)
    select g.id, 'achievement.unlocked', jsonb_build_object('user_id', g.id, 'code', grant_achievement_set.code), v_acting
    from unnest(grant_achievement_set.users) g(id)
    where exists (select from app.auth_tokens t
                  where t.user_id = g.id and t.revoked_at is null and t.expires_at > now() and t.id is distinct from v_acting)
    order by g.id;
    insert into app.events (user_id, type, payload)
    select case when f.user_low = g.id then f.user_high else f.user_low end, 'achievement.unlocked',
           jsonb_build_object('user_id', g.id, 'code', grant_achievement_set.code)
    from unnest(grant_achievement_set.users) g(id)
    join app.friendships f on g.id in (f.user_low, f.user_high) and f.status = 'accepted'
    order by g.id, 1;
end
$$;

-- The most events granting an achievement with `reward` coins to `user_id` writes: balance.changed
-- (a reward moves the balance), one to the person's own devices, one to each friend.
create or replace function app.backfill_event_cost(user_id uuid, reward integer)
returns integer
language sql stable
set search_path = public, pg_temp
as $$
    select (case when backfill_event_cost.reward > 0 then 1 else 0 end) + 1
           + (select count(*)::integer from app.friendships f
              where backfill_event_cost.user_id in (f.user_low, f.user_high) and f.status = 'accepted')
$$;

-- A DBA's tool for a small set: grants the achievement `code` (active) to every account that
-- already qualifies and does not hold it, in one transaction (2026-12-01): one insert ... select
-- of app.user_achievements for every live account whose count (app.achievement_value, the number
-- a check and progress read) reached the target, in id order, then app.grant_achievement_set.
-- A transaction writes at most 65,536 events (app.next_event_id): when the grants would write
-- more than 50,000 (app.backfill_event_cost) it writes nothing and raises 54000
-- (program_limit_exceeded), naming the batched form, CALL app.backfill_achievement_all(code)
-- (2026-12-06). Safe to run again (a holder is skipped, the primary key lets one insert
-- through) and beside live traffic (a racing check and the backfill grant once: the later
-- waits, then skips). Notes the grants for the answer as app.grant_achievement does. Returns
-- how many it granted. Unknown or inactive code: an error.
create or replace function app.backfill_achievement(code text)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_kind text;
    v_target integer;
    v_reward integer;
    v_users uuid[];
begin
    select a.kind, app.achievement_target(a.kind, a.threshold), a.reward_coins into v_kind, v_target, v_reward
    from app.achievements a where a.code = backfill_achievement.code and a.active;
    if v_kind is null then
        raise exception 'no active achievement %', backfill_achievement.code using errcode = 'no_data_found';
    end if;
    with granted as (
        insert into app.user_achievements (user_id, achievement_code)
        select u.id, backfill_achievement.code from app.users u
        where u.deleted_at is null
          and not exists (select from app.user_achievements ua
                          where ua.user_id = u.id and ua.achievement_code = backfill_achievement.code)
          and app.achievement_value(u.id, v_kind) >= v_target
        order by u.id
        on conflict do nothing
        returning user_id
    )
    select coalesce(array_agg(g.user_id order by g.user_id), '{}') into v_users from granted g;
    if (select coalesce(sum(app.backfill_event_cost(g.id, v_reward)), 0) from unnest(v_users) g(id)) > 50000 then
        raise exception 'backfilling % would write more events than one transaction may', backfill_achievement.code
            using errcode = 'program_limit_exceeded',
                  hint = format('CALL app.backfill_achievement_all(%L); grants in batches, each committed', backfill_achievement.code);
    end if;
    perform app.grant_achievement_set(backfill_achievement.code, v_users);
    if cardinality(v_users) > 0 then
        perform set_config('focus.achievements_unlocked',
                           (coalesce(nullif(current_setting('focus.achievements_unlocked', true), ''), '[]')::jsonb
                           || (select jsonb_agg(jsonb_build_object('user_id', g.id, 'code', backfill_achievement.code) order by g.id)
                               from unnest(v_users) g(id)))::text,
                           true);
    end if;
    return cardinality(v_users);
end
$$;
comment on function app.backfill_achievement(text) is
    'DBA tool for a small set: grants an active achievement (and its reward) to every account that already qualifies, '
    'in one transaction (54000 past 50,000 events: use CALL app.backfill_achievement_all); safe to run again.';

-- One batch of a backfill (2026-12-06): the next live accounts in id order after `after_id`
-- (null: from the start) that qualify for `code` (active) and do not hold it, at most
-- `batch_size` of them and, in id order, as many as keep the batch's events (app.backfill_event_cost)
-- within `max_events` (at least one person, whatever their friends), are granted as
-- app.backfill_achievement grants: a row each, the reward, the events (app.grant_achievement_set),
-- all in the caller's transaction, so a batch is written whole or not at all. Exactly once: a
-- person who holds it (an earlier batch, a run that was interrupted after its commit, a live
-- check) is skipped, and the primary key of app.user_achievements lets one insert through when
-- a live check races the batch (only the inserted rows are paid and told). Returns granted (this
-- batch), last_id (the last account the batch looked at: pass it as after_id to the next), and
-- more (the batch stopped at its size or its events, so another may find more; false once the
-- accounts ran out). Between batches nothing is held: run each in its own transaction
-- (app.backfill_achievement_all does). Unknown or inactive code: an error.
create or replace function app.backfill_achievement(code text, batch_size integer, after_id uuid default null,
                                                    max_events integer default 50000)
returns table (granted integer, last_id uuid, more boolean)
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_kind text;
    v_target integer;
    v_reward integer;
    v_candidates integer;
    v_chosen uuid[];
    v_users uuid[];
begin
    if batch_size is null or batch_size < 1 or max_events is null or max_events < 1 then
        raise exception 'batch_size and max_events are at least 1' using errcode = 'invalid_parameter_value';
    end if;
    select a.kind, app.achievement_target(a.kind, a.threshold), a.reward_coins into v_kind, v_target, v_reward
    from app.achievements a where a.code = backfill_achievement.code and a.active;
    if v_kind is null then
        raise exception 'no active achievement %', backfill_achievement.code using errcode = 'no_data_found';
    end if;
    with candidates as materialized (
        select u.id, app.backfill_event_cost(u.id, v_reward) as cost
        from app.users u
        where u.deleted_at is null
          and (backfill_achievement.after_id is null or u.id > backfill_achievement.after_id)
          and not exists (select from app.user_achievements ua
                          where ua.user_id = u.id and ua.achievement_code = backfill_achievement.code)
          and app.achievement_value(u.id, v_kind) >= v_target
        order by u.id
        limit backfill_achievement.batch_size
    ),
    running as (
        select c.id, sum(c.cost) over (order by c.id) as events, row_number() over (order by c.id) as n from candidates c
    )
    select (select count(*)::integer from candidates),
           coalesce(array_agg(r.id order by r.id) filter (where r.events <= backfill_achievement.max_events or r.n = 1), '{}')
    into v_candidates, v_chosen
    from running r;
    with inserted as (
        insert into app.user_achievements (user_id, achievement_code)
        select g.id, backfill_achievement.code from unnest(v_chosen) g(id)
        order by g.id
        on conflict do nothing
        returning user_id
    )
    select coalesce(array_agg(i.user_id order by i.user_id), '{}') into v_users from inserted i;
    perform app.grant_achievement_set(backfill_achievement.code, v_users);
    return query select cardinality(v_users), v_chosen[cardinality(v_chosen)],
                        cardinality(v_chosen) < v_candidates or v_candidates = backfill_achievement.batch_size;
end
$$;
comment on function app.backfill_achievement(text, integer, uuid, integer) is
    'DBA tool: one batch of a backfill (at most batch_size people and max_events events, after after_id in id order); '
    'granted, last_id (the next batch''s after_id), more. Exactly once per person; CALL app.backfill_achievement_all loops it.';

-- The whole backfill of `code`, a batch (app.backfill_achievement(code, batch_size, after_id))
-- per transaction: each batch is committed before the next begins, so no transaction writes
-- more than 50,000 events, locks are held for one batch only, and an interrupted run (a
-- cancel, a lost connection, a restart) keeps the batches it committed; calling it again goes
-- on with who is left (holders are skipped). A NOTICE per batch says how far it is. Run it with
-- CALL from psql outside a transaction block (a procedure commits only there; inside one,
-- PostgreSQL refuses the COMMIT with 2D000). `granted` answers the total. No SET clause: a
-- procedure with one may not commit, so every name here is schema-qualified.
create or replace procedure app.backfill_achievement_all(code text, batch_size integer default 5000,
                                                         inout granted integer default 0)
language plpgsql
as $$
declare
    v_after uuid;
    v_batch record;
    v_batches integer := 0;
begin
    granted := 0;
    loop
        select b.granted, b.last_id, b.more into v_batch
        from app.backfill_achievement(backfill_achievement_all.code, backfill_achievement_all.batch_size, v_after) b;
        commit;
        granted := granted + v_batch.granted;
        v_batches := v_batches + 1;
        v_after := v_batch.last_id;
        raise notice 'backfill %: batch %, % granted (% in all)', backfill_achievement_all.code, v_batches,
            v_batch.granted, granted;
        exit when not v_batch.more;
    end loop;
end
$$;
comment on procedure app.backfill_achievement_all(text, integer, integer) is
    'DBA tool: CALL app.backfill_achievement_all(code) outside a transaction block; backfills in batches of batch_size, '
    'each committed; resumable (run it again), exactly once per person. granted: how many in all.';
