-- 0014 board ties: the global board's top is the first `limit` rows of the period in the order
-- (minutes desc, user_id), read from an index in that order, so it costs O(limit) whatever the tie
-- at its edge. The indexes of 0012 ordered only by minutes; ties were ordered by display name,
-- which no index holds, so the board read every row tied with the last of its top, with their
-- names (at a million users, 8,334 users tied at the day's highest minutes: p50 604 ms).
-- The user id makes the cut stable (and arbitrary: it favours no name). A rank needs nothing
-- more: every row with more minutes than the top's last is inside the top, so rank() within the
-- top is the global rank; the caller's own rank comes from the histogram (0013).
drop index app.daily_minutes_board;
create index daily_minutes_top on app.daily_minutes (day, minutes desc, user_id);
comment on index app.daily_minutes_top is
    'The global daily board: the day''s top in (minutes desc, user_id) order, limit rows read (api.leaderboards_get).';

drop index app.weekly_minutes_board;
create index weekly_minutes_top on app.weekly_minutes (week, minutes desc, user_id);
comment on index app.weekly_minutes_top is
    'The global weekly board: the week''s top in (minutes desc, user_id) order, limit rows read (api.leaderboards_get).';
