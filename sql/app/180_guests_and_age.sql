-- Guests and the age gate (migration 0080, docs/guests.md): who is restricted, and the one way
-- a birth month is stored, for every route that asks it (sign-up, guest, upgrade, and the
-- Apple and Google sign-ins to come).
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- Whether an account with this birth month and parental consent is restricted by the age gate:
-- a birth month given, less than app.age_settings.min_age years before today counted from the
-- end of that month (a person born in December 2013 is 13 from January 2027 on: the month's
-- last day is the one that cannot be too early), and no parent's consent recorded. No birth
-- month (an account from before the question, or a client that does not ask) is not
-- restricted (the decision of 2026-12-07, docs/guests.md). Plain SQL: inlined where called, as
-- in the global board's scan.
create or replace function app.age_restricted(birth_month date, parental_consent_at timestamptz)
returns boolean
language sql stable
as $$
    select age_restricted.birth_month is not null and age_restricted.parental_consent_at is null
           and age_restricted.birth_month + interval '1 month'
               + make_interval(years => (select s.min_age from app.age_settings s)) > current_date
$$;

-- Whether the account user_id is restricted now (app.age_restricted of its row); false for an
-- unknown id.
create or replace function app.user_age_restricted(user_id uuid)
returns boolean
language sql stable
set search_path = public, pg_temp
as $$
    select coalesce((select app.age_restricted(u.birth_month, u.parental_consent_at)
                     from app.users u where u.id = user_age_restricted.user_id), false)
$$;

-- Records the birth month an account's owner gave, once. Guarantees: birth_year and
-- birth_month both given or both null (then nothing is written); a month 1 to 12 of a year from
-- 1900 that is not in the future, else 22023 invalid_parameter_value (a route checks its body
-- first and answers 400 invalid_field: api.birth_month_field); stored as the month's first day
-- (nothing finer is kept); an account that already has one keeps it (a child cannot answer
-- again to leave the gate: only a parent's consent lifts it). Returns the stored month (null
-- when none). For every route that makes or upgrades an account, the third-party sign-ins too.
create or replace function app.record_birth_month(user_id uuid, birth_year integer, birth_month integer)
returns date
language plpgsql volatile security definer
set search_path = public, pg_temp
as $$
declare
    v_month date;
begin
    if record_birth_month.birth_year is null and record_birth_month.birth_month is null then
        return (select u.birth_month from app.users u where u.id = record_birth_month.user_id);
    end if;
    if record_birth_month.birth_year is null or record_birth_month.birth_month is null
       or record_birth_month.birth_month not between 1 and 12
       or record_birth_month.birth_year not between 1900 and extract(year from current_date)
       or make_date(record_birth_month.birth_year, record_birth_month.birth_month, 1) > current_date then
        raise exception 'not a birth month: % %', record_birth_month.birth_year, record_birth_month.birth_month
            using errcode = 'invalid_parameter_value';
    end if;
    v_month := make_date(record_birth_month.birth_year, record_birth_month.birth_month, 1);
    update app.users u set birth_month = v_month, updated_at = now()
    where u.id = record_birth_month.user_id and u.birth_month is null and u.deleted_at is null;
    return (select u.birth_month from app.users u where u.id = record_birth_month.user_id);
end
$$;
comment on function app.record_birth_month(uuid, integer, integer) is
    'The age gate''s one writer: stores the birth month (first of the month) an account''s owner gave, once; both null '
    'writes nothing; 22023 for a month that is no birth month. Returns the stored month.';
