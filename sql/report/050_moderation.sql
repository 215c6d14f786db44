-- Moderation: what users reported about each other, and what moderators did.

create view report.user_reports as
select r.id as report_id,
       r.created_at,
       r.status,
       r.reason,
       r.details,
       r.reported as reported_user_id,
       u.display_name as reported_display_name,
       exists (select from app.avatars a where a.user_id = r.reported) as reported_has_avatar,
       (select count(*) from app.user_reports o where o.reported = r.reported) as reports_about_user,
       r.reporter as reporter_user_id,
       (select count(*) from app.blocks b where b.blocked = r.reported) as times_blocked,
       r.resolved_at,
       r.resolved_by as resolved_by_user_id,
       r.resolution
from app.user_reports r
join app.users u on u.id = r.reported;
comment on view report.user_reports is
    'One row per report a user made about another, newest first when ordered by created_at: the status '
    '(open, actioned, dismissed), the reason and details, who was reported (id, current display name, whether '
    'they have an avatar, how many reports and blocks they have), who reported, and who resolved it when and why. '
    'Reports about a deleted account are deleted with it; reports a deleted account made stay, from its anonymous '
    'id. Filter on created_at (user_reports_time), reported_user_id (user_reports_reported) or status '
    '(user_reports_status).';

create view report.moderation_actions as
select m.id as action_id,
       m.created_at,
       m.moderator as moderator_user_id,
       mu.display_name as moderator_display_name,
       m.action,
       m.user_id,
       m.report_id,
       m.reason,
       m.details
from app.moderation_actions m
join app.users mu on mu.id = m.moderator;
comment on view report.moderation_actions is
    'The moderators'' audit: one row per action (rename, remove_avatar, suspend, ban, resolve_report) with who '
    'did it, when, to whom, the report it resolved and the reason. Filter on created_at (moderation_actions_time) '
    'or user_id (moderation_actions_user).';
