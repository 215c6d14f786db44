-- Readiness: GET /ready answers the newest applied migration (the server answers 503 when it fails).
-- clock: any
begin;
select plan(1);

select is(api.ready(), jsonb_build_object('status', 'ready', 'schema_version', (select max(version) from app.schema_migrations)),
          'ready reports the newest applied migration as the schema version');

select * from finish();
rollback;
