-- What an account's age bounds (migration 0035, docs/gifts.md "What a farmer could use").

-- A focus session never starts before its account was made (app.users.created_at): a trigger
-- on app.focus_sessions, before every insert and every change of started_at or user_id, whoever
-- writes it. Raises check_violation (23514, constraint focus_sessions_after_account). A live
-- session starts at its transaction's now(), never before the account; an offline upload is
-- refused earlier with a clear 422 invalid_session (api.focus_sessions_create), so this is the
-- backstop that no other path can go round.
create or replace function app.focus_sessions_after_account()
returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
    if new.started_at < (select u.created_at from app.users u where u.id = new.user_id) then
        raise check_violation using
            message = format('focus session %s starts before its account was made', new.id),
            constraint = 'focus_sessions_after_account';
    end if;
    return new;
end
$$;
