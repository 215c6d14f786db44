-- The moderation audit's guards. Bound in 0017_moderation.sql.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Append-only, but for two changes: details emptied when the user acted on deletes the account
-- (a rename's details hold the name the moderator gave, which is the person's name until then),
-- and report_id set null when the report goes with it.
create or replace function app.moderation_actions_append_only()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if tg_op = 'DELETE' then
        raise exception 'app.moderation_actions is append-only';
    end if;
    if (new.id, new.created_at, new.moderator, new.action, new.user_id, new.reason)
           is distinct from (old.id, old.created_at, old.moderator, old.action, old.user_id, old.reason)
       or (new.details is distinct from old.details and new.details <> '{}')
       or (new.report_id is distinct from old.report_id and new.report_id is not null) then
        raise exception 'app.moderation_actions is append-only';
    end if;
    return new;
end
$$;

-- A deleted account's audit rows keep the action and the reason, not what they named.
create or replace function app.moderation_actions_erase()
returns trigger
language plpgsql security definer
set search_path = public, pg_temp
as $$
begin
    update app.moderation_actions m set details = '{}' where m.user_id = new.id and m.details <> '{}';
    return null;
end
$$;
