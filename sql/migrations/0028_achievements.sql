-- 0028 achievements (2026-12-01).
--
-- A catalogue of achievements a DBA edits (app.achievements), one row per person and
-- achievement they unlocked (app.user_achievements, the primary key makes a second one
-- impossible), the reward as a ledger entry of its own ('reward', naming its achievement, at most
-- once per person and achievement by a unique index), the `achievement.unlocked` event, and the
-- triggers that check the achievements from the tables the existing endpoints write: sessions
-- ending, friendships accepted, items acquired, rooms completed. The rules are in
-- sql/app/130_achievements.sql; docs/achievements.md says why.

create table app.achievements (
    code          text primary key check (code ~ '^[a-z][a-z0-9_]{0,39}$'),
    name          text not null check (length(name) between 1 and 60),
    description   text not null check (length(description) between 1 and 200),
    kind          text not null check (kind in ('sessions_completed', 'minutes_focused', 'streak_days', 'friends',
                                                'rooms_completed', 'every_pet')),
    threshold     integer check (threshold between 1 and 10000000),
    reward_coins  integer not null default 0 check (reward_coins between 0 and 100000),
    sort_order    integer not null default 0,
    active        boolean not null default true,
    created_at    timestamptz not null default now(),
    check ((kind = 'every_pet') = (threshold is null))
);
comment on table app.achievements is
    'Achievements (a DBA edits them). kind says what is counted, threshold the count that unlocks it: sessions_completed '
    '(ended sessions with at least one minute), minutes_focused (minutes of all sessions), streak_days (the longest run of '
    'local days with minutes), friends (accepted friendships), rooms_completed (rooms completed with the person in them); '
    'every_pet has no threshold: every active pet of the shop. reward_coins are paid once through the ledger. An '
    'inactive achievement is neither checked nor listed to those who do not hold it. A new one is granted to those who '
    'already qualify by app.backfill_achievement(code).';
insert into app.achievements (code, name, description, kind, threshold, reward_coins, sort_order) values
    ('first_session', 'First focus', 'Finish your first focus session.', 'sessions_completed', 1, 10, 10),
    ('ten_hours', 'Ten hours', 'Focus for ten hours in all.', 'minutes_focused', 600, 50, 20),
    ('week_streak', 'A week in a row', 'Focus on seven days in a row.', 'streak_days', 7, 50, 30),
    ('first_friend', 'Better together', 'Make your first friend.', 'friends', 1, 10, 40),
    ('first_room', 'Room mates', 'Complete a focus room with friends.', 'rooms_completed', 1, 20, 50),
    ('every_pet', 'Full menagerie', 'Own every pet in the shop.', 'every_pet', null, 100, 60);

create table app.user_achievements (
    user_id           uuid not null references app.users,
    achievement_code  text not null references app.achievements,
    unlocked_at       timestamptz not null default now(),
    primary key (user_id, achievement_code)
);
create index user_achievements_code on app.user_achievements (achievement_code);
comment on table app.user_achievements is
    'The achievements each person unlocked, once each (the primary key), kept when the achievement turns inactive.';

-- The reward: its own ledger entry, naming its achievement, at most once per person and achievement.
alter table app.coin_ledger add column achievement_code text references app.achievements;
alter table app.coin_ledger drop constraint coin_ledger_entry_check;
alter table app.coin_ledger add constraint coin_ledger_entry_check check (entry in ('earn', 'spend', 'grant', 'bonus', 'reward'));
alter table app.coin_ledger add constraint coin_ledger_reward_has_achievement
    check ((entry = 'reward') = (achievement_code is not null) and (entry <> 'reward' or amount > 0));
create unique index coin_ledger_one_reward_per_achievement on app.coin_ledger (user_id, achievement_code) where entry = 'reward';

-- Events: achievement.unlocked to the person and to each of their friends {user_id: the person, code}.
alter table app.events drop constraint events_type_check;
alter table app.events add constraint events_type_check check (type in (
    'friend_request.received', 'friend_request.accepted', 'friend_request.ended',
    'friend.removed', 'friend.updated', 'balance.changed',
    'catalog.changed', 'tips.changed', 'config.changed',
    'session.started', 'session.finished', 'session.abandoned', 'selection.changed', 'item.acquired',
    'profile.changed', 'settings.changed', 'block.added', 'block.removed',
    'report.created',
    'room.invited', 'room.joined', 'room.left', 'room.started', 'room.finished', 'room.gave_up', 'room.ended',
    'achievement.unlocked'));
alter table app.events drop constraint events_check;
alter table app.events add constraint events_check
    check ((user_id is null) = (type in ('catalog.changed', 'tips.changed', 'config.changed')));

-- The checks, from the tables the endpoints write (sql/app/130_achievements.sql).
create trigger focus_sessions_achievements
after insert or update of ended_at, minutes on app.focus_sessions
for each row when (new.ended_at is not null and new.minutes > 0)
execute function app.focus_sessions_achievements();
create trigger friendships_achievements
after insert or update of status on app.friendships
for each row when (new.status = 'accepted')
execute function app.friendships_achievements();
create trigger user_items_achievements
after insert on app.user_items
for each row execute function app.user_items_achievements();
create trigger rooms_achievements
after update of status on app.rooms
for each row when (new.status = 'completed' and old.status is distinct from 'completed')
execute function app.rooms_achievements();
