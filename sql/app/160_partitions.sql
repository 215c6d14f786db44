-- Time partitions of the append-only tables that are pruned (docs/operations.md, "Pruning",
-- 2026-12-06): each is range-partitioned on its time column, one partition per `width`
-- (app.partitioned_tables), made `ahead` widths before it is needed by the partitions job, and
-- dropped whole once its upper bound is past the retention, instead of deleting row by row.
-- A partition is named <table>_part_<UTC start> (events_part_20261208); the partition holding
-- what the table had before it was partitioned is <table>_part_before, and <table>_part_default
-- holds a row no partition covers (the job fell behind, a clock far off, a back-dated fixture):
-- an insert never fails for want of a partition.
-- The live definitions: loaded on every migrate (create or replace), see sql/app/README.md.

-- The partitions of `parent` with their bounds (lower null: MINVALUE; both null: the default),
-- in no particular order (order by upper to read them oldest first).
create or replace function app.partitions(parent regclass)
returns table (part regclass, lower timestamptz, upper timestamptz, is_default boolean)
language plpgsql stable
set search_path = public, pg_temp
as $$
declare
    v_part regclass;
    v_bound text;
    v_match text[];
begin
    for v_part, v_bound in
        select i.inhrelid::regclass, pg_get_expr(c.relpartbound, c.oid)
        from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = partitions.parent
    loop
        v_match := regexp_match(v_bound, '^FOR VALUES FROM \((.*)\) TO \((.*)\)$');
        part := v_part;
        is_default := v_match is null;
        lower := case when v_match is null or v_match[1] = 'MINVALUE' then null else trim(both '''' from v_match[1])::timestamptz end;
        upper := case when v_match is null or v_match[2] = 'MAXVALUE' then null else trim(both '''' from v_match[2])::timestamptz end;
        return next;
    end loop;
end
$$;
comment on function app.partitions(regclass) is
    'The partitions of a time-partitioned table with their bounds: lower null is MINVALUE, is_default the default partition.';

-- The start of the partition slot holding `at`: slots are `width` long from 2000-01-01 UTC, so
-- daily partitions begin at UTC midnight.
create or replace function app.partition_slot(at timestamptz, width interval)
returns timestamptz
language sql immutable
set search_path = public, pg_temp
as $$
    select date_bin(partition_slot.width, partition_slot.at, timestamptz '2000-01-01 00:00:00+00')
$$;

-- The upper bound of the partition holding what `old` (the table as it was before it was
-- partitioned) holds: -infinity when it has no row (a new database: every row goes to the day
-- partitions), else the cut-over its validated check names (app.partitioned_tables.cutover),
-- else just past its newest row. Read by the migration that attaches it, under its ACCESS
-- EXCLUSIVE lock on `old`, so no row can arrive after it is read.
create or replace function app.partition_cutover(parent text, old regclass, time_column text)
returns timestamptz
language plpgsql stable
set search_path = public, pg_temp
as $$
declare
    v_newest timestamptz;
begin
    execute format('select max(%I) from %s', time_column, old) into v_newest;
    if v_newest is null then
        return '-infinity'::timestamptz;
    end if;
    return coalesce((select t.cutover from app.partitioned_tables t where t.parent = partition_cutover.parent),
                    v_newest + interval '1 microsecond');
end
$$;

-- Makes the partitions of `parent` (registered in app.partitioned_tables) that the time from
-- now to `ahead` widths later needs, each `width` long, where no partition it has overlaps (so
-- never overlapping one), and returns how many it made. Each is created as a table of its own
-- (LIKE the parent: columns, defaults, checks) and ATTACHed: ATTACH takes SHARE UPDATE
-- EXCLUSIVE on the parent (writes routed to other partitions go on) and ACCESS EXCLUSIVE on the
-- default partition, which it scans (empty unless the job fell behind), so a read that reaches
-- the default waits for it; CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE on the
-- parent. The indexes and row triggers come with the ATTACH. Locks wait at most 200 ms, as the
-- drops' (the job runs again in minutes). A slot whose rows the default partition already
-- holds is skipped (its ATTACH would fail with 23514 and, the job being one statement, stop
-- every later day of every table from being made): those rows stay readable where they are,
-- and the days after it are made (docs/operations.md, "Pruning").
create or replace function app.partitions_ensure(parent regclass)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
    v_width interval;
    v_ahead integer;
    v_from timestamptz;
    v_until timestamptz;
    v_name text;
    v_schema text := (select n.nspname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = partitions_ensure.parent);
    v_table text := (select c.relname::text from pg_class c where c.oid = partitions_ensure.parent);
    v_made integer := 0;
    v_lock_timeout text := current_setting('lock_timeout');
    v_default regclass := (select p.part from app.partitions(parent) p where p.is_default);
    v_column name := (select a.attname from pg_partitioned_table pt
                      join pg_attribute a on a.attrelid = pt.partrelid and a.attnum = pt.partattrs[0]
                      where pt.partrelid = partitions_ensure.parent);
    v_held boolean := false;
begin
    select t.width, t.ahead into v_width, v_ahead from app.partitioned_tables t where t.parent = v_schema || '.' || v_table;
    if v_width is null then
        raise exception '% is not in app.partitioned_tables', parent using errcode = 'invalid_parameter_value';
    end if;
    v_from := app.partition_slot(now(), v_width);
    v_until := now() + v_width * v_ahead;
    perform set_config('lock_timeout', '200ms', true);
    while v_from < v_until loop
        -- A slot some partition already overlaps is skipped: every slot from now on is made,
        -- also one before the newest partition (a clock set back, a day dropped by hand).
        if exists (select from app.partitions(parent) p
                   where not p.is_default and coalesce(p.lower < v_from + v_width, true)
                     and coalesce(p.upper > v_from, true)) then
            v_from := v_from + v_width;
            continue;
        end if;
        -- So is a slot whose rows the default partition holds (see above).
        if v_default is not null then
            execute format('select exists (select from %s where %I >= $1 and %I < $2)', v_default, v_column, v_column)
                into v_held using v_from, v_from + v_width;
            if v_held then
                v_from := v_from + v_width;
                continue;
            end if;
        end if;
        v_name := v_table || '_part_' || to_char(v_from at time zone 'UTC',
                                                 case when v_width >= interval '1 day' then 'YYYYMMDD' else 'YYYYMMDD"t"HH24MI' end);
        execute format('create table %I.%I (like %s including defaults including constraints including storage)', v_schema, v_name, parent);
        execute format('alter table %s attach partition %I.%I for values from (%L) to (%L)',
                       parent, v_schema, v_name, v_from, v_from + v_width);
        v_made := v_made + 1;
        v_from := v_from + v_width;
    end loop;
    perform set_config('lock_timeout', v_lock_timeout, true);
    return v_made;
end
$$;
comment on function app.partitions_ensure(regclass) is
    'Makes the partitions a table of app.partitioned_tables needs from now to `ahead` widths later (where none is), '
    'each created alone and ATTACHed (SHARE UPDATE EXCLUSIVE on the parent); returns how many. Run by the partitions job.';

-- The partitions of `parent` whose upper bound is at least `retention` old and which hold no row
-- meeting the table's keep_while (app.partitioned_tables: the mail's unsent rows), oldest first,
-- so a partition kept for an unsent mail holds up none after it; the default and a partition
-- without an upper bound never are.
create or replace function app.partitions_expired(parent regclass, retention interval)
returns setof regclass
language plpgsql stable
set search_path = public, pg_temp
as $$
declare
    v_keep_while text := (select t.keep_while from app.partitioned_tables t
                          where to_regclass(t.parent) = partitions_expired.parent);
    v_part regclass;
    v_kept boolean := false;
begin
    for v_part in
        select p.part from app.partitions(parent) p
        where not p.is_default and p.upper <= now() - retention
        order by p.upper
    loop
        if v_keep_while is not null then
            -- keep_while is SQL by design: app.partitioned_tables is focus_owner's alone, as this function is.
            perform 'PRAGMA:disable:security_warnings';
            execute format('select exists (select from %s where %s)', v_part, v_keep_while) into v_kept;
            perform 'PRAGMA:enable:security_warnings';
        end if;
        if not v_kept then
            return next v_part;
        end if;
    end loop;
end
$$;
comment on function app.partitions_expired(regclass, interval) is
    'The partitions whose upper bound is at least `retention` old and that hold no row meeting the table''s keep_while '
    '(app.partitioned_tables), oldest first.';

-- The oldest of them (app.partitions_expired); null when none is.
create or replace function app.partition_expired(parent regclass, retention interval)
returns regclass
language sql stable
set search_path = public, pg_temp
as $$
    select e.part from app.partitions_expired(partition_expired.parent, partition_expired.retention) with ordinality e(part, n)
    order by e.n
    limit 1
$$;
comment on function app.partition_expired(regclass, interval) is
    'The oldest partition whose upper bound is at least `retention` old and that holds no row meeting the table''s '
    'keep_while (app.partitioned_tables); null when none is.';

-- The retention of each table of app.partitioned_tables, read from where each is set: the events'
-- (app.event_settings), the Idempotency-Keys' (app.idempotency_settings), the sign-in
-- failures' (app.retention_settings, never inside what throttling reads: failed_login_window)
-- and the mail's (app.retention_settings).
create or replace function app.partition_retention(parent regclass)
returns interval
language sql stable
set search_path = public, pg_temp
as $$
    select case partition_retention.parent
           when 'app.events'::regclass then (select s.retention from app.event_settings s)
           when 'app.idempotency_keys'::regclass then (select s.retention from app.idempotency_settings s)
           when 'app.login_failures'::regclass
               then (select greatest(r.login_failures, a.failed_login_window) from app.retention_settings r, app.auth_settings a)
           when 'app.outgoing_mail'::regclass then (select r.outgoing_mail from app.retention_settings r)
           end
$$;
comment on function app.partition_retention(regclass) is
    'How long a row of a table of app.partitioned_tables is kept, from that table''s own settings; null for another table.';

-- Drops the partition `part`, waiting at most 200 ms for its lock: DROP takes ACCESS EXCLUSIVE
-- on the parent as well as the partition (PostgreSQL 15; DETACH ... CONCURRENTLY cannot run in
-- the job's transaction), and every request reading or writing the table queues behind a
-- waiting DROP, so it gives up soon and the next run tries again. Returns whether it dropped.
-- The lock is held until the caller commits: call it last in its transaction.
create or replace function app.partition_drop(part regclass)
returns boolean
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
    v_lock_timeout text := current_setting('lock_timeout');
begin
    perform set_config('lock_timeout', '200ms', true);
    begin
        execute format('drop table %s', part);
    exception when lock_not_available then
        perform set_config('lock_timeout', v_lock_timeout, true);
        return false;
    end;
    perform set_config('lock_timeout', v_lock_timeout, true);
    return true;
end
$$;
comment on function app.partition_drop(regclass) is
    'Drops a partition, waiting at most 200 ms for the ACCESS EXCLUSIVE lock on it and its parent; false when the '
    'lock was not granted in time (the next run tries again). Call it last in its transaction.';

-- Drops every partition of `parent` whose upper bound is at least `retention` old and which holds
-- no row meeting the table's keep_while (app.partitions_expired), oldest first, and returns how
-- many rows they held and the highest `id` among them (null when none was dropped or the table
-- has no `id`). Every one is counted first and only then are they dropped: the first DROP takes
-- ACCESS EXCLUSIVE on the parent until the caller commits, so a count after it would keep every
-- reader and writer of the parent waiting through it (the counts of 4 more days of 2 million
-- events: 1.7 s, docs/performance.md, "10 million events past retention"). Stops at the first
-- drop whose lock is not granted in 200 ms (app.partition_drop): the ones dropped are the
-- oldest, so every row up to `last_id` of them is gone. Call it last in its transaction.
create or replace function app.partitions_drop_expired(parent regclass, retention interval, out rows bigint, out last_id bigint)
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
    v_has_id boolean := exists (select from pg_attribute a where a.attrelid = partitions_drop_expired.parent
                                                          and a.attname = 'id' and not a.attisdropped);
    v_parts regclass[];
    v_rows bigint[];
    v_last bigint[];
    v_part regclass;
    v_count bigint;
    v_max bigint;
begin
    for v_part in select e.part from app.partitions_expired(parent, retention) with ordinality e(part, n) order by e.n loop
        execute format('select count(*), %s from %s', case when v_has_id then 'max(id)::bigint' else 'null::bigint' end, v_part)
            into v_count, v_max;
        v_parts := v_parts || v_part;
        v_rows := v_rows || v_count;
        v_last := v_last || v_max;
    end loop;
    rows := 0;
    for i in 1 .. coalesce(array_length(v_parts, 1), 0) loop
        exit when not app.partition_drop(v_parts[i]);
        rows := rows + v_rows[i];
        last_id := greatest(last_id, v_last[i]);
    end loop;
end
$$;
comment on function app.partitions_drop_expired(regclass, interval) is
    'Drops every partition past the retention that holds no keep_while row, oldest first, each counted (rows, highest '
    'id) before the first drop takes the parent''s ACCESS EXCLUSIVE lock; stops at a drop whose lock is not granted in '
    '200 ms. Call it last in its transaction.';

-- One run of the partitions job: the partitions every table of app.partitioned_tables needs
-- ahead, made; returns how many were made.
create or replace function app.partitions_ensure_all()
returns integer
language sql volatile
set search_path = public, pg_temp
as $$
    select coalesce(sum(app.partitions_ensure(t.parent::regclass)), 0)::integer
    from app.partitioned_tables t
    where to_regclass(t.parent) is not null
      and (select c.relkind from pg_class c where c.oid = to_regclass(t.parent)) = 'p'
$$;
comment on function app.partitions_ensure_all() is
    'The partitions job''s step: app.partitions_ensure for every partitioned table of app.partitioned_tables; how many '
    'partitions it made.';

-- Removes the rows of `parent` (a table of app.partitioned_tables other than app.events, which
-- app.prune_events prunes) past its retention (app.partition_retention), the rows meeting its
-- keep_while excepted, and returns how many: deletes at most `batch` (null: all) from each
-- partition without a lower bound (the default, and _part_before with what the table held
-- before it was partitioned: both span any age), then drops one expired partition whole
-- (app.partition_expired, app.partition_drop; every one when `batch` is null, all counted
-- before the first drop: app.partitions_drop_expired), its rows counted first. So a row is kept for the retention and gone within a width after it, and the
-- day partitions are never deleted from row by row. The drop's lock is held until the caller
-- commits: call it late in its transaction (the prune job's step).
create or replace function app.prune_partitioned(parent regclass, batch integer)
returns integer
language plpgsql volatile
set search_path = public, pg_temp
as $$
declare
    v_retention interval := app.partition_retention(parent);
    v_keep_while text := (select t.keep_while from app.partitioned_tables t where to_regclass(t.parent) = prune_partitioned.parent);
    v_column name := (select a.attname from pg_partitioned_table pt
                      join pg_attribute a on a.attrelid = pt.partrelid and a.attnum = pt.partattrs[0]
                      where pt.partrelid = prune_partitioned.parent);
    v_part regclass;
    v_rows integer;
    v_count integer := 0;
begin
    if v_retention is null or v_column is null then
        raise exception '% is not a time-partitioned table with a retention', parent using errcode = 'invalid_parameter_value';
    end if;
    for v_part in select p.part from app.partitions(parent) p where p.lower is null loop
        -- keep_while is SQL by design: app.partitioned_tables is focus_owner's alone, as this function is.
        perform 'PRAGMA:disable:security_warnings';
        execute format('delete from %1$s where ctid in (select ctid from %1$s where %2$I < $1 and not coalesce(%3$s, false) limit $2)',
                       v_part, v_column, coalesce('(' || v_keep_while || ')', 'false'))
        using now() - v_retention, batch;
        get diagnostics v_rows = row_count;
        perform 'PRAGMA:enable:security_warnings';
        v_count := v_count + v_rows;
    end loop;
    if batch is null then
        -- Every expired partition, all counted before the first drop locks the table.
        return v_count + (select d.rows::integer from app.partitions_drop_expired(parent, v_retention) d);
    end if;
    v_part := app.partition_expired(parent, v_retention);  -- the job: one a step
    if v_part is not null then
        execute format('select count(*)::integer from %s', v_part) into v_rows;
        if app.partition_drop(v_part) then  -- not locked in time: the next run drops it
            v_count := v_count + v_rows;
        end if;
    end if;
    return v_count;
end
$$;
comment on function app.prune_partitioned(regclass, integer) is
    'Removes the rows of a time-partitioned table past its retention (app.partition_retention), keep_while rows excepted: '
    'at most `batch` (null: all) deleted from the default and _part_before, and one expired partition dropped whole '
    '(null: every one); how many rows. Call it late in its transaction (the drop''s lock is held until commit).';
