-- Report plans: "filter on day" really uses an index on the views' day expression, on a table
-- large enough (20,000 sessions over 5,000 days) that a sequential scan would be the planner's
-- choice without one.
begin;
select plan(4);
select test.new_user('dba');
insert into app.focus_sessions (id, user_id, source, started_at, ended_at, occupies, minutes)
select gen_random_uuid(), test.uid('dba'), 'offline', t, t + interval '10 minutes', tstzrange(t, t + interval '10 minutes'), 10
from (select test.day_start(5000) + n * interval '6 hours' as t from generate_series(0, 19999) n) s;
insert into app.friendship_events (request_id, user_low, user_high, actor, action, created_at)
select gen_random_uuid(), test.uid('dba'), test.uid('dba'), test.uid('dba'), 'asked', test.day_start(5000) + n * interval '6 hours'
from generate_series(0, 19999) n;
analyze app.focus_sessions;
analyze app.friendship_events;

-- The plan of a query, as one text.
create function pg_temp.plan_of(query text) returns text language plpgsql as $$
declare
    v_line text;
    v_plan text := '';
begin
    for v_line in execute 'explain ' || query loop
        v_plan := v_plan || v_line || E'\n';
    end loop;
    return v_plan;
end
$$;

select matches(pg_temp.plan_of(format('select * from report.%I where day = %L', view, (test.day_start(10) at time zone 'UTC')::date)),
               'focus_sessions_end_day', format('report.%s filtered on one day reads the focus_sessions_end_day index', view))
from unnest(array['daily_active_users', 'focused_minutes_per_day', 'sessions_per_day_by_path']) as view;
select matches(pg_temp.plan_of(format('select * from report.friendship_funnel_per_day where day = %L',
                                      (test.day_start(10) at time zone 'UTC')::date)),
               'friendship_events_day', 'report.friendship_funnel_per_day filtered on one day reads the friendship_events_day index');

select * from finish();
rollback;
