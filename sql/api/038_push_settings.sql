-- api push settings: the `push` member of the Profile's settings and its PATCH /me reader
-- (before 040_profile.sql, which builds and changes the Profile with them).

-- PushSettings = {quiet_hours: {start: "HH:MM", end: "HH:MM"} | null, muted: [push or reminder type],
--                 evening: "HH:MM", mail_reminders: boolean}
-- quiet_hours: local wall times in settings.time_zone; a push due inside them waits for `end`.
-- muted: the push types (app.push_types) and reminder types (app.reminder_types) the person
-- wants no push for. evening: the local time of the streak reminder (19:00 by default).
-- mail_reminders: a reminder comes by mail when they have no push token (false by default).
-- docs/push.md, "Reminders".
create function api.push_settings_json(user_id uuid)
returns jsonb
language plpgsql stable security definer set search_path = public, pg_temp
as $$
begin
    return (select jsonb_build_object(
            'quiet_hours', case when s.quiet_start is not null then
                jsonb_build_object('start', to_char(s.quiet_start, 'HH24:MI'), 'end', to_char(s.quiet_end, 'HH24:MI')) end,
            'muted', to_jsonb(coalesce(s.muted, '{}')),
            'evening', to_char(coalesce(s.evening, time '19:00'), 'HH24:MI'),
            'mail_reminders', coalesce(s.mail_reminders, false))
        from (select push_settings_json.user_id as id) u
        left join app.push_settings s on s.user_id = u.id);
end
$$;

-- A local time "HH:MM" (00:00 to 23:59) of settings.push.quiet_hours (or of settings.push itself,
-- prefix ''), else 400 invalid_field.
create function api.quiet_time(quiet_hours jsonb, field text, prefix text default 'quiet_hours.')
returns time
language plpgsql volatile
as $$
declare
    v_text text := api.text_field(quiet_time.quiet_hours, quiet_time.field, max_length => 5);
begin
    if v_text !~ '^([01][0-9]|2[0-3]):[0-5][0-9]$' then
        perform api.fail_field(quiet_time.prefix || quiet_time.field, 'must be a local time HH:MM, 00:00 to 23:59.');
    end if;
    return v_text::time;
end
$$;

-- Checks PATCH /me's settings.push and stores it; only the members given change
-- (quiet_hours null clears them, muted replaces the list). Raises 400 invalid_field before
-- anything is written: unknown keys, start equal to end, a type neither app.push_types nor
-- app.reminder_types has, an evening not HH:MM, mail_reminders not a boolean. A new evening
-- moves the streak reminder already scheduled (app.reminder_streak_reschedule).
create function api.push_settings_apply(user_id uuid, push jsonb)
returns void
language plpgsql volatile security definer set search_path = public, pg_temp
as $$
declare
    v_push jsonb := api.only_keys(push_settings_apply.push, array['quiet_hours', 'muted', 'evening', 'mail_reminders']);
    v_quiet jsonb := v_push -> 'quiet_hours';
    v_start time;
    v_end time;
    v_muted text[];
    v_evening time;
    v_mail boolean;
begin
    if v_quiet is not null and jsonb_typeof(v_quiet) <> 'null' then
        if jsonb_typeof(v_quiet) <> 'object' then
            perform api.fail_field('quiet_hours', 'must be an object {start, end} or null.');
        end if;
        perform api.only_keys(v_quiet, array['start', 'end']);
        v_start := api.quiet_time(v_quiet, 'start');
        v_end := api.quiet_time(v_quiet, 'end');
        if v_start = v_end then
            perform api.fail_field('quiet_hours', 'must end at another time than it starts.');
        end if;
    end if;
    if v_push ? 'muted' then
        if jsonb_typeof(v_push -> 'muted') <> 'array'
           or exists (select from jsonb_array_elements(v_push -> 'muted') m where jsonb_typeof(m) <> 'string') then
            perform api.fail_field('muted', 'must be a list of push types.');
        end if;
        select coalesce(array_agg(distinct m order by m), '{}') into v_muted
        from jsonb_array_elements_text(v_push -> 'muted') m;
        if exists (select from unnest(v_muted) m
                   where not exists (select from app.push_types t where t.type = m)
                     and not exists (select from app.reminder_types t where t.type = m)) then
            perform api.fail_field('muted', 'must name push types: '
                || (select string_agg(t.type, ', ' order by t.type)
                    from (select type from app.push_types union all select type from app.reminder_types) t) || '.');
        end if;
    end if;
    if v_push ? 'evening' then
        v_evening := api.quiet_time(v_push, 'evening', '');
    end if;
    if v_push ? 'mail_reminders' then
        if jsonb_typeof(v_push -> 'mail_reminders') <> 'boolean' then
            perform api.fail_field('mail_reminders', 'must be true or false.');
        end if;
        v_mail := (v_push ->> 'mail_reminders')::boolean;
    end if;

    insert into app.push_settings as s (user_id, quiet_start, quiet_end, muted, evening, mail_reminders)
    values (push_settings_apply.user_id, v_start, v_end, coalesce(v_muted, '{}'), coalesce(v_evening, time '19:00'),
            coalesce(v_mail, false))
    on conflict on constraint push_settings_pkey do update
    set quiet_start = case when v_push ? 'quiet_hours' then excluded.quiet_start else s.quiet_start end,
        quiet_end = case when v_push ? 'quiet_hours' then excluded.quiet_end else s.quiet_end end,
        muted = case when v_push ? 'muted' then excluded.muted else s.muted end,
        evening = case when v_push ? 'evening' then excluded.evening else s.evening end,
        mail_reminders = case when v_push ? 'mail_reminders' then excluded.mail_reminders else s.mail_reminders end;
    if v_push ? 'evening' then
        perform app.reminder_streak_reschedule(push_settings_apply.user_id);
    end if;
end
$$;
