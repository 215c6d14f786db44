-- 0063 app.idempotency_keys partitioned by UTC day of created_at (2026-12-06; docs/operations.md,
-- "Pruning"): the prune drops a day whole (app.prune_partitioned) instead of deleting its rows in
-- batches. As 0045 did for the events, in one transaction under one ACCESS EXCLUSIVE lock on the
-- old table, taken first: the old table is renamed app.idempotency_keys_part_before, a
-- partitioned app.idempotency_keys takes its name with the same columns, defaults, checks,
-- indexes and triggers, and the old table becomes its partition for everything below the
-- cut-over (0062's validated check spares the scan, its index on (scope, key) is attached, not
-- built). The primary key (scope, key) goes: a partitioned table's unique index must hold
-- created_at, so the trigger app.idempotency_keys_unique keeps (scope, key) unique across the
-- partitions, each writer of a key waiting for the one before it (docs/decisions.md, 2026-12-06).
set local lock_timeout = '2s';
lock table app.idempotency_keys in access exclusive mode;

alter table app.idempotency_keys rename to idempotency_keys_part_before;
alter index app.idempotency_keys_created_at rename to idempotency_keys_part_before_created_at;
alter index app.idempotency_keys_user rename to idempotency_keys_part_before_user;
alter index app.idempotency_keys_scope_key rename to idempotency_keys_part_before_scope_key;
alter table app.idempotency_keys_part_before drop constraint idempotency_keys_pkey;
-- The row trigger comes from the parent at ATTACH.
drop trigger idempotency_keys_link on app.idempotency_keys_part_before;

create table app.idempotency_keys (
    scope           text not null,
    key             text not null,
    route           text not null,
    request_digest  bytea not null,
    token_digest    bytea,
    reply           jsonb,
    sealed_reply    bytea,
    created_at      timestamptz not null default now(),
    user_id         uuid,
    constraint idempotency_keys_key_check check (key ~ '^[\x21-\x7e]{1,255}$'),
    constraint idempotency_keys_scope_check check (length(scope) between 1 and 400)
) partition by range (created_at);
comment on table app.idempotency_keys is
    'Idempotency-Key answers kept 24 h (app.idempotency_settings.retention), one row a (scope, key) '
    '(app.idempotency_keys_unique). Partitioned by UTC day of created_at (app.partitioned_tables); '
    'app.prune_idempotency_keys drops a day once it is past the retention.';
comment on column app.idempotency_keys.sealed_reply is
    'pgp_sym_encrypt(reply, HMAC-SHA-256(the whole request, the server''s seal key)) for requests with secrets; '
    'the seal key never reaches the database''s tables.';
comment on column app.idempotency_keys.user_id is
    'The account the stored answer belongs to: the bearer''s, or the one holding the email of a public '
    'route''s request (set once the answer is stored, for a sign-up); erased with it.';
create index idempotency_keys_created_at on app.idempotency_keys (created_at);
create index idempotency_keys_user on app.idempotency_keys (user_id) where user_id is not null;
create index idempotency_keys_scope_key on app.idempotency_keys (scope, key);
create trigger idempotency_keys_link before insert or update on app.idempotency_keys
    for each row execute function app.link_idempotency_key();
create trigger idempotency_keys_unique before insert on app.idempotency_keys
    for each row execute function app.idempotency_keys_unique();

-- The default partition holds a row no day partition covers yet: an insert never fails.
create table app.idempotency_keys_part_default partition of app.idempotency_keys default;
alter table app.idempotency_keys attach partition app.idempotency_keys_part_before
    for values from (minvalue) to (app.partition_cutover('app.idempotency_keys', 'app.idempotency_keys_part_before', 'created_at'));
-- The days from the cut-over (or today) to three days ahead; the partitions job keeps them ahead.
select app.partitions_ensure('app.idempotency_keys');

-- The running servers' api.idempotent (the previous migrate's) takes a key with INSERT ... ON
-- CONFLICT (scope, key), which needs the unique index that is gone: until this migrate replaces
-- `api` from sql/api, every keyed request would fail. So the form of sql/api/002_idempotency.sql
-- as of this migration replaces it here, in this transaction (not on a new database: no `api`
-- yet).
do $migration$
begin
    if to_regprocedure('api.idempotent(text, text, jsonb, jsonb)') is not null then
        execute $bridge$
        create or replace function api.idempotent(endpoint text, token text, params jsonb, body jsonb)
        returns api.reply
        language plpgsql volatile security definer set search_path = public, pg_temp
        as $$
        declare
            v_key text := idempotent.params ->> 'idempotency_key';
            v_seal_key text := idempotent.params ->> 'seal_key';
            v_params jsonb := idempotent.params - 'seal_key';  -- the endpoint never sees the seal key
            v_function regprocedure := to_regprocedure(idempotent.endpoint || '(text, jsonb, jsonb)');
            v_keep boolean := false;  -- true: this request owns the key and stores its answer
            v_token_digest bytea;
            v_user_id uuid;
            v_valid boolean := false;
            v_scope text;
            v_request jsonb;
            v_digest bytea;
            v_sealed boolean := idempotent.body ?| api.secret_fields();
            v_seal text;  -- the sealing key of this request (secrets and the server's seal key in it)
            v_retention interval;
            v_row app.idempotency_keys;
            v_reply api.reply;
        begin
            if v_function is null or idempotent.endpoint !~ '^api\.[a-z_]+$' then
                raise exception 'api.idempotent: % is not an endpoint', idempotent.endpoint;
            end if;
            -- The table's rule (0011): visible ASCII, no space. Checked here first, so a key the table
            -- would refuse is the client's 400, not a 422 constraint_violation.
            if v_key is not null and v_key !~ '^[\x21-\x7e]{1,255}$' then
                perform api.fail(400, 'invalid_field', 'Idempotency-Key must be 1 to 255 visible ASCII characters, without spaces.',
                                 jsonb_build_object('field', 'Idempotency-Key'));
            end if;

            if v_key is not null and (select p.provolatile from pg_proc p where p.oid = v_function) = 'v'
               and (not v_sealed or length(v_seal_key) >= 32) then
                if idempotent.token is not null then
                    v_token_digest := sha256(convert_to(idempotent.token, 'UTF8'));
                    select t.user_id, t.revoked_at is null and t.expires_at > now() into v_user_id, v_valid
                    from app.auth_tokens t where t.digest = v_token_digest;
                    -- A replay runs no endpoint and so no api.authenticate: the log line's user from here.
                    if v_valid then
                        perform set_config('focus.user_id', v_user_id::text, true);
                    end if;
                    v_scope := 'user:' || v_user_id;
                    if v_user_id is null then  -- gone with DELETE /me: the keys it made itself only
                        select k.scope into v_scope from app.idempotency_keys k
                        where k.token_digest = v_token_digest and k.key = v_key;
                    end if;
                elsif jsonb_typeof(idempotent.body -> 'email') = 'string' then
                    v_scope := 'email:' || lower(btrim(idempotent.body ->> 'email'));
                end if;
            end if;

            -- With somebody to keep the key for (else the endpoint answers: 401, 400): the key first.
            -- The negotiated language is not part of the request: a retry with another Accept-Language
            -- replays the first answer, in the first answer's language.
            if v_scope is not null and length(v_scope) <= 400 then
                v_request := jsonb_build_object('route', idempotent.endpoint,
                                                'params', v_params - array['client_ip', 'user_agent', 'idempotency_key', 'language'],
                                                'body', idempotent.body);
                v_seal := encode(hmac(convert_to(v_request::text, 'UTF8'), convert_to(v_seal_key, 'UTF8'), 'sha256'), 'hex');
                v_digest := sha256(convert_to(jsonb_set(v_request, '{body}', idempotent.body - api.secret_fields())::text, 'UTF8'));
                select s.retention into v_retention from app.idempotency_settings s;

                -- Waits here for a racing request with this key to commit or roll back (the key's lock:
                -- app.idempotency_keys is partitioned by day and has no unique index on (scope, key)
                -- since 0063), then reads the key with a snapshot taken after it.
                perform app.idempotency_key_lock(v_scope, v_key);
                select * into v_row from app.idempotency_keys k where k.scope = v_scope and k.key = v_key;
                if v_row.scope is null or v_row.created_at < now() - v_retention then
                    -- Absent, or past the retention: taken over (a new row in today's partition).
                    delete from app.idempotency_keys k where k.scope = v_scope and k.key = v_key;
                    insert into app.idempotency_keys (scope, key, route, request_digest, token_digest)
                    values (v_scope, v_key, idempotent.endpoint, v_digest, v_token_digest);
                    v_keep := true;
                else
                    -- A token that no longer authenticates replays only what it made itself; else the endpoint answers 401.
                    if v_valid or idempotent.token is null or v_row.token_digest = v_token_digest then
                        if v_row.route <> idempotent.endpoint or v_row.request_digest <> v_digest then
                            perform api.fail(422, 'idempotency_key_reused',
                                             'This Idempotency-Key was used for another request; use a new key for a new request.');
                        end if;
                        if v_row.sealed_reply is not null then
                            begin
                                return jsonb_populate_record(null::api.reply, pgp_sym_decrypt(v_row.sealed_reply, v_seal)::jsonb);
                            exception when external_routine_invocation_exception then  -- another password or code, or seal key
                                perform api.fail(422, 'idempotency_key_reused',
                                                 'This Idempotency-Key was used for another request; use a new key for a new request.');
                            end;
                        end if;
                        if v_row.reply is null then  -- a request is one statement: only SQL calling twice in one transaction
                            raise exception 'api.idempotent: the key % has no answer yet in this transaction', v_key;
                        end if;
                        return jsonb_populate_record(null::api.reply, v_row.reply);
                    end if;
                end if;
            end if;

            -- The endpoint, named by its regproc (an existing function, never text a client wrote).
            -- plpgsql_check cannot type a dynamic statement's result: api.reply, as 000_structure.sql
            -- checks for every endpoint.
            perform 'PRAGMA:disable:other_warnings';
            execute format('select * from %s($1, $2, $3)', v_function::oid::regproc)
            into v_reply using idempotent.token, v_params, idempotent.body;
            perform 'PRAGMA:enable:other_warnings';
            if v_keep and v_sealed then
                update app.idempotency_keys k set sealed_reply = pgp_sym_encrypt(to_jsonb(v_reply)::text, v_seal)
                where k.scope = v_scope and k.key = v_key;
            elsif v_keep then
                update app.idempotency_keys k set reply = to_jsonb(v_reply) where k.scope = v_scope and k.key = v_key;
            end if;
            return v_reply;
        end
        $$;
        $bridge$;
    end if;
end
$migration$;
