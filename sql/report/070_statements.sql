-- Statements: where this database's time goes, from pg_stat_statements (2026-12-05).
--
-- The extension is created by sql/bootstrap.sql (a superuser's, once per cluster) and counts only
-- where PostgreSQL loads it (shared_preload_libraries, docs/operations.md). A database without it
-- (a cluster bootstrapped before, a scratch database) gets no view rather than a failed migrate.
-- The clusters load it with pg_stat_statements.track = all: the server's own statement is one
-- line per route (`select … from api.me_get($1, …)`), and what makes a route slow is a statement
-- inside its functions, which `top` would not count. focus_report reads every role's statement
-- text through pg_read_all_stats (bootstrap.sql); the texts hold no values (constants and
-- parameters show as $1, $2, …).
do $$
declare
    v_schema name := (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
                      where e.extname = 'pg_stat_statements');
begin
    if v_schema is null then
        raise notice 'report.slowest_statements: pg_stat_statements is not in this database (sql/bootstrap.sql creates it)';
        return;
    end if;
    execute format($view$
        create view report.slowest_statements as
        select s.toplevel,
               pg_get_userbyid(s.userid) as role,
               s.calls,
               round(s.total_exec_time::numeric, 1) as total_ms,
               round(s.mean_exec_time::numeric, 3) as mean_ms,
               round(s.max_exec_time::numeric, 3) as max_ms,
               round((100 * s.total_exec_time / nullif(sum(s.total_exec_time) over (partition by s.toplevel), 0))::numeric, 1)
                   as percent_of_time,
               s.rows,
               round(100.0 * s.shared_blks_hit / nullif(s.shared_blks_hit + s.shared_blks_read, 0), 1) as cache_hit_percent,
               s.temp_blks_written,
               s.query
        from %I.pg_stat_statements s
        where s.dbid = (select d.oid from pg_database d where d.datname = current_database())
        order by s.total_exec_time desc
    $view$, v_schema);
    comment on view report.slowest_statements is
        'One row per statement of this database since the statistics were last reset (pg_stat_statements_reset(), '
        'a superuser''s), the most time first: toplevel (true: what a client sent, the server''s `select … from api.<fn>(…)` '
        'a route; false: a statement run inside a function, counted in its caller''s time too), the role it ran as '
        '(a SECURITY DEFINER function''s statements run as focus_owner), calls, total, mean and longest execution in '
        'ms, its share of the time of its level, rows, the shared-buffer hit rate, temporary blocks written '
        '(sorts and hashes past work_mem), and the text with its values as $1, $2, ….';
end
$$;
