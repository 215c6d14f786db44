-- Moderation: what users reported about each other.

create view report.user_reports as
select r.id as report_id,
       r.created_at,
       r.reason,
       r.details,
       r.reported as reported_user_id,
       u.display_name as reported_display_name,
       exists (select from app.avatars a where a.user_id = r.reported) as reported_has_avatar,
       (select count(*) from app.user_reports o where o.reported = r.reported) as reports_about_user,
       r.reporter as reporter_user_id,
       (select count(*) from app.blocks b where b.blocked = r.reported) as times_blocked
from app.user_reports r
join app.users u on u.id = r.reported;
comment on view report.user_reports is
    'One row per report a user made about another, newest first when ordered by created_at: the reason '
    'and details, who was reported (id, current display name, whether they have an avatar, how many '
    'reports and blocks they have) and who reported. Reports about a deleted account are deleted with '
    'it; reports a deleted account made stay, from its anonymous id. Filter on created_at '
    '(user_reports_time) or reported_user_id (user_reports_reported).';
