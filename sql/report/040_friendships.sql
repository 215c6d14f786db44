-- Friendships.

create view report.friendship_funnel_per_day as
select (e.created_at at time zone 'UTC')::date as day,
       count(*) filter (where e.action = 'asked') as asked,
       count(*) filter (where e.action = 'accepted') as accepted,
       count(*) filter (where e.action = 'declined') as declined,
       count(*) filter (where e.action = 'cancelled') as cancelled,
       count(*) filter (where e.action = 'removed') as removed
from app.friendship_events e
group by 1;
comment on view report.friendship_funnel_per_day is
    'One row per UTC day: friendship transitions by kind (asked, accepted, declined, cancelled, '
    'removed), from the append-only friendship_events. Filter on day to use friendship_events_day.';
