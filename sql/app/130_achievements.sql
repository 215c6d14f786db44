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
            (select count(*)::integer from app.focus_sessions s
             where s.user_id = achievement_value.user_id and s.ended_at is not null and s.minutes > 0)
        when 'minutes_focused' then
            (select coalesce(sum(s.minutes), 0)::integer from app.focus_sessions s
             where s.user_id = achievement_value.user_id and s.ended_at is not null)
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

-- A DBA's tool: grants the achievement `code` (active) to every account that already qualifies
-- and does not hold it, paying each the reward, as a trigger's check would (app.grant_achievement
-- says what a grant writes), but for the whole set in a few statements (2026-12-01): one insert
-- ... select of app.user_achievements for every live account whose count (app.achievement_value,
-- the number a check and progress read) reached the target, in id order; then one insert of
-- their rewards (the ledger's unique index refuses a second reward, whatever writes it; the
-- balance and balance.changed follow each row as for any ledger row); then achievement.unlocked
-- to each one's own devices (those with a live token, as app.tell_own_devices) and to each one's
-- friends. The same rows and events as granting them one by one; the events come grouped by kind
-- (every balance, then every person, then every friend, each in id order) rather than person by
-- person. Safe to run again (a holder is skipped, the primary key lets one insert through) and
-- beside live traffic (a racing check and the backfill grant once: the later waits, then skips).
-- Returns how many it granted. Unknown or inactive code: an error.
create or replace function app.backfill_achievement(code text)
returns integer
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_kind text;
    v_target integer;
    v_reward integer;
    v_acting uuid := app.acting_token();
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
    if v_reward > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, achievement_code)
        select g.id, 'reward', v_reward, 'achievement', backfill_achievement.code from unnest(v_users) g(id) order by g.id;
    end if;
    insert into app.events (user_id, type, payload, origin_token)
    select g.id, 'achievement.unlocked', jsonb_build_object('user_id', g.id, 'code', backfill_achievement.code), v_acting
    from unnest(v_users) g(id)
    where exists (select from app.auth_tokens t
                  where t.user_id = g.id and t.revoked_at is null and t.expires_at > now() and t.id is distinct from v_acting)
    order by g.id;
    insert into app.events (user_id, type, payload)
    select case when f.user_low = g.id then f.user_high else f.user_low end, 'achievement.unlocked',
           jsonb_build_object('user_id', g.id, 'code', backfill_achievement.code)
    from unnest(v_users) g(id)
    join app.friendships f on g.id in (f.user_low, f.user_high) and f.status = 'accepted'
    order by g.id, 1;
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
    'DBA tool: grants an active achievement (and its reward) to every account that already qualifies; safe to run again.';
