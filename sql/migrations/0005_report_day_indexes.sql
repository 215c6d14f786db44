-- 0005 report day indexes: the report views group by UTC day, `(ts at time zone 'UTC')::date`.
-- A btree on the timestamp itself cannot serve `where day = …` on such a view; an index on the
-- very same expression can (the filter is pushed below the view's GROUP BY onto it). The
-- ledger needs none: coin_economy_per_day's running total reads every earlier day anyway.
create index focus_sessions_end_day on app.focus_sessions (((ended_at at time zone 'UTC')::date));
create index friendship_events_day on app.friendship_events (((created_at at time zone 'UTC')::date));
