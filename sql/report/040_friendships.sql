-- Friendships.

create view report.friendship_funnel_per_day as
select d.day,
       coalesce(sum(d.events) filter (where d.action = 'asked'), 0)::bigint as asked,
       coalesce(sum(d.events) filter (where d.action = 'accepted'), 0)::bigint as accepted,
       coalesce(sum(d.events) filter (where d.action = 'declined'), 0)::bigint as declined,
       coalesce(sum(d.events) filter (where d.action = 'cancelled'), 0)::bigint as cancelled,
       coalesce(sum(d.events) filter (where d.action = 'removed'), 0)::bigint as removed
from (select (e.created_at at time zone 'UTC')::date as day, e.action, 1::bigint as events
      from app.friendship_events e
      union all
      select t.day, t.action, t.events from app.friendship_event_day_totals t) d
group by 1;
comment on view report.friendship_funnel_per_day is
    'One row per UTC day: friendship transitions by kind (asked, accepted, declined, cancelled, '
    'removed), from the append-only friendship_events and the counts of those archived past the horizon '
    '(app.friendship_event_day_totals). Filter on day to use friendship_events_day.';
