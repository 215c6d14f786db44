-- api streaks: buying a streak freeze. The streak itself and the freezes' use are
-- sql/app/130_streaks.sql's (app.user_streak, app.apply_streak_freezes); GET /me/stats shows
-- them (sql/api/050_focus_sessions.sql). docs/streaks.md.

-- The freezes part of GET /me/stats: {streak_freezes_held, streak_freezes_used, streak_frozen_days}:
-- the freezes held now, all the days freezes ever covered, and the local days (YYYY-MM-DD,
-- oldest first) covered inside the current streak (none when there is no current streak).
-- Call after app.user_streak, which applies the freezes due.
create function api.streak_freezes_json(user_id uuid, current_days integer)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (with alive as (
            select (s.ended_at at time zone t.zone)::date as day
            from app.user_sessions(streak_freezes_json.user_id) s cross join api.user_time_zone(streak_freezes_json.user_id) t(zone)
            where s.ended_at is not null and s.minutes > 0
            union
            select f.covered_day from app.streak_freezes f
            where f.user_id = streak_freezes_json.user_id and f.covered_day is not null
        ),
        current_start as (
            select max(a.day) as day from alive a where not exists (select from alive b where b.day = a.day - 1)
        )
        select jsonb_build_object(
            'streak_freezes_held', (select count(*) from app.streak_freezes f
                                    where f.user_id = streak_freezes_json.user_id and f.slot is not null),
            'streak_freezes_used', (select count(*) from app.streak_freezes f
                                    where f.user_id = streak_freezes_json.user_id and f.covered_day is not null),
            'streak_frozen_days', coalesce((select jsonb_agg(f.covered_day order by f.covered_day)
                                            from app.streak_freezes f cross join current_start c
                                            where f.user_id = streak_freezes_json.user_id and streak_freezes_json.current_days > 0
                                              and f.covered_day >= c.day), '[]')));
end
$$;

-- StreakFreezes = {freezes_held, freezes_max, price, balance, freeze: {id, bought_at}}
-- POST /me/streak-freezes (no body): buys one freeze at app.economy_settings.streak_freeze_price.
-- Guarantees: the buyer's row is locked first, so racing purchases run one after the other and
-- each sees the others' freezes and balance; at most two held (409 streak_freezes_full, also the
-- unique (user_id, slot) constraint whatever writes); a balance below the price is 409
-- insufficient_funds (balance, price); otherwise the freeze and its ledger row (entry 'freeze',
-- at most one per freeze) are written together, and the balance moves by the price exactly
-- once (balance.changed). Freezes due are applied first, so a freeze used up frees its slot.
create function api.me_streak_freezes_create(token text, params jsonb, body jsonb)
returns api.reply
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_user_id uuid := api.authenticate(me_streak_freezes_create.token);
    v_balance integer;
    v_price integer := (select e.streak_freeze_price from app.economy_settings e);
    v_slot integer;
    v_freeze app.streak_freezes;
begin
    v_balance := (api.lock_user(v_user_id)).balance;
    perform app.apply_streak_freezes(v_user_id);
    select min(s.slot) into v_slot
    from generate_series(1, 2) s(slot)
    where not exists (select from app.streak_freezes f where f.user_id = v_user_id and f.slot = s.slot);
    if v_slot is null then
        perform api.fail(409, 'streak_freezes_full', 'You already hold two streak freezes, the most one can hold.');
    end if;
    if v_balance < v_price then
        perform api.fail(409, 'insufficient_funds', 'You do not have enough coins for a streak freeze.',
                         jsonb_build_object('balance', v_balance, 'price', v_price));
    end if;
    insert into app.streak_freezes (user_id, slot, price) values (v_user_id, v_slot, v_price)
    returning * into v_freeze;
    if v_price > 0 then
        insert into app.coin_ledger (user_id, entry, amount, reason, freeze_id)
        values (v_user_id, 'freeze', -v_price, 'streak freeze', v_freeze.id);
    end if;
    return api.ok(jsonb_build_object(
        'freezes_held', (select count(*) from app.streak_freezes f where f.user_id = v_user_id and f.slot is not null),
        'freezes_max', 2,
        'price', v_price,
        'balance', v_balance - v_price,
        'freeze', jsonb_build_object('id', v_freeze.id, 'bought_at', api.iso(v_freeze.bought_at))));
end
$$;
grant execute on function api.me_streak_freezes_create(text, jsonb, jsonb) to focus_api;
comment on function api.me_streak_freezes_create(text, jsonb, jsonb) is
    'POST /me/streak-freezes: locks the buyer; buys one streak freeze at economy_settings.streak_freeze_price; '
    '409 streak_freezes_full (two held), 409 insufficient_funds (balance, price); freeze and ledger row together.';
insert into api.endpoints (method, path, function, status, errors)
values ('POST', '/me/streak-freezes', 'api.me_streak_freezes_create', 201,
        '{account_suspended, insufficient_funds, invalid_field, streak_freezes_full}');
