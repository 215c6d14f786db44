#!/usr/bin/env python3
"""prune-drill.py: expired day partitions of app.events removed by the server's own prune job
while the server answers a steady load (scripts/prune-drill). Python's standard library only;
psql for the database side; the load is scripts/chaos live-migration's (live-migration-drill.py:
LIVE_CLIENTS clients, 4, at LIVE_RATE requests a second each, 10: reads, purchases, GET /me and
uploads of sessions).

  prune-drill.py BASE_URL OWNER_URL SUPERUSER_URL LOADED_EXPIRED LOADED_LIVE

LOADED_EXPIRED events with ids 1 to LOADED_EXPIRED lie in day partitions past the retention,
LOADED_LIVE with the ids above them inside it (scripts/prune-drill loaded them). After
PRUNE_BEFORE seconds (20) of load, the prune is made due (next_run_at = now(), as a DBA would);
the server's job runner claims it at its next pass (once a minute) and runs it, a step a day,
each step committed (sql/api/140_jobs.sql). The run's start is its claim (next_run_at - every),
its end api.job_finished's last_run_at; the drill waits until no expired partition is left
(a run stopped by its budget is taken up again a minute later), then PRUNE_AFTER seconds (15)
more load. PRUNE_BY=jobs_run instead: the drill makes it due and runs it at once with
`select api.jobs_run()` in one transaction, as a DBA catching up would (docs/operations.md,
"Rerunning a job, as a DBA"): every step's drop then holds app.events until the end; or
PRUNE_BY=prune_events: `select app.prune_events()`, every expired day counted, then dropped.
Printed, one line per figure (the shell's check format):
  - the wait for the runner, the removal's time, the job's result;
  - the statements of the steps from pg_stat_statements (reset before): each drop (its lock
    wait included), the count before it and the steps, their calls, mean and max (a commit's
    own work, the files unlinked, is not in them);
  - the lock's probe (class Probe): the longest reads of app.events during the removal;
  - requests answered, by kind, and failed (anything but 2xx, or no answer within 15 s);
  - p50 / p99 / max latency of all requests and of the uploads started before, during and
    after the removal.
Then the checks: no expired partition and no event before the oldest day kept, pruned_through
the highest id removed, the events inside the retention as they were, app.events' count the
one before less the removed plus the new, each upload answered 2xx in app.focus_sessions,
report.counter_reconciliation and report.ledger_reconciliation empty. Exits 1 if a check failed.
"""
import importlib.util
import os
import pathlib
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("live_migration_drill", HERE / "live-migration-drill.py")
lm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lm)
check, psql, now, say, percentile = lm.check, lm.psql, lm.now, lm.say, lm.percentile

BEFORE = float(os.environ.get("PRUNE_BEFORE", "20"))
AFTER = float(os.environ.get("PRUNE_AFTER", "15"))
BY = os.environ.get("PRUNE_BY", "runner")
# How long the removal may take, the runner's wait included, before the drill gives up.
LIMIT = 600.0

RETENTION = "(select s.retention from app.event_settings s)"


class Probe:
    """The lock's probe: a read of app.events every 20 ms on one psql connection, each answer's
    time kept. A drop holds ACCESS EXCLUSIVE on app.events from its start to its commit, and a
    read that meets it waits, so the longest reads during the removal show how long each drop
    held (or waited for) the table."""

    def __init__(self, url):
        self.psql = subprocess.Popen(["psql", "-X", "-At", url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.records = []  # (started, seconds)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            started = now()
            self.psql.stdin.write("select count(*) from app.events where id = 0 and created_at = now();\n")
            self.psql.stdin.flush()
            if not self.psql.stdout.readline():
                return
            self.records.append((started, now() - started))
            self.stop.wait(0.02)

    def finish(self):
        self.stop.set()
        self.thread.join(5)
        self.psql.stdin.close()
        self.psql.wait(5)


def wall_to_monotonic(epoch):
    """A database time (seconds since the epoch) on the clock the load's records use."""
    return epoch - time.time() + now()


def latencies(records, low, high, kind=None):
    values = [(r[1] - r[0]) * 1000 for r in records if low <= r[0] < high and (kind is None or r[2] == kind)]
    return (f"{len(values)} requests: p50 {percentile(values, 0.5):.0f} ms, p99 {percentile(values, 0.99):.0f} ms, "
            f"max {max(values, default=0):.0f} ms")


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    base, owner_url, su_url, loaded_expired, loaded_live = argv[1], argv[2], argv[3], int(argv[4]), int(argv[5])
    ok = True

    # Before: what is past the retention, what is inside it, the table's count and newest id.
    expired_count, expired_max, expired_parts = psql(owner_url, f"""
        select count(*), coalesce(max(e.id), 0),
               (select count(*) from app.partitions('app.events') p where not p.is_default and p.upper <= now() - {RETENTION})
        from app.events e
        where e.created_at < (select max(p.upper) from app.partitions('app.events') p
                              where not p.is_default and p.upper <= now() - {RETENTION})""").split("|")
    live_sql = (f"select concat_ws(' ', count(*), sum(e.id), sum(extract(epoch from e.created_at))::bigint, "
                f"md5(string_agg(e.payload::text, ',' order by e.id))) from app.events e "
                f"where e.id > {loaded_expired} and e.id <= {loaded_expired + loaded_live}")
    live_before = psql(owner_url, live_sql)
    total_before, newest_before = psql(owner_url, "select count(*), max(id) from app.events").split("|")
    print(f"  past the retention: {int(expired_count):,} events in {expired_parts} day partitions, the highest id {expired_max}; "
          f"app.events {int(total_before):,} events")
    psql(su_url, "select pg_stat_statements_reset()")

    # Accounts enough for the load until the removal's limit.
    lm.BEFORE, lm.AFTER = BEFORE, AFTER + LIMIT / 2
    load = lm.Load(base, owner_url)
    load.start()
    probe = Probe(owner_url)
    began = now()
    say(f"load: {lm.CLIENTS} clients at {lm.RATE:g} requests/s each; the prune made due in {BEFORE:g} s")
    load.stop.wait(BEFORE)

    claimed = finished = None
    runs = set()
    if BY == "jobs_run":
        # A DBA's catch-up: every step in the one statement (and transaction) of api.jobs_run().
        say("the prune made due and run by api.jobs_run(), as a DBA would")
        claimed = time.time()
        psql(owner_url, "begin; update app.scheduled_jobs set next_run_at = now() where name = 'prune'; "
                        "select api.jobs_run(); commit;")
        finished, due_at = time.time(), claimed
        runs.add(claimed)
        result = int(psql(owner_url, "select last_result from app.scheduled_jobs where name = 'prune'") or 0)
    elif BY == "prune_events":
        # A DBA's other catch-up: every expired day in the one transaction of app.prune_events().
        say("every expired day removed by select app.prune_events(), as a DBA would")
        claimed = time.time()
        result = int(psql(owner_url, "select app.prune_events()"))
        finished, due_at = time.time(), claimed
        runs.add(claimed)
    else:
        due_at = float(psql(owner_url, "with due as (update app.scheduled_jobs set next_run_at = now() where name = 'prune' "
                                       "returning next_run_at) select extract(epoch from next_run_at) from due"))
        triggered = now()
        say("the prune is due; waiting for the server's job runner")
        while now() - triggered < LIMIT:
            row = psql(owner_url, f"""
                select extract(epoch from j.next_run_at - j.every), coalesce(extract(epoch from j.last_run_at), 0),
                       coalesce(j.last_result, 0), coalesce(j.last_error, ''),
                       (select count(*) from app.partitions('app.events') p where not p.is_default and p.upper <= now() - {RETENTION})
                from app.scheduled_jobs j where j.name = 'prune'""").split("|")
            claim, last_run, result, error, left = float(row[0]), float(row[1]), int(row[2]), row[3], int(row[4])
            if claim >= due_at:
                runs.add(round(claim, 3))
                claimed = claim if claimed is None else claimed
            if error:
                ok = check(f"the prune failed: {error}", False)
                break
            if claimed is not None and left == 0 and last_run >= max(runs):
                finished = last_run
                break
            time.sleep(0.2)
    removal_ended = now()
    load.stop.wait(AFTER)
    load.finish()
    probe.finish()
    ended = now()

    if finished is None:
        ok = check(f"the prune removed every expired partition within {LIMIT:.0f} s", False)
        claimed, finished = claimed or due_at, time.time()
    during_low, during_high = wall_to_monotonic(claimed), wall_to_monotonic(finished)
    ok &= check(f"{'the runner claimed the prune' if BY == 'runner' else BY + ' began'} {claimed - due_at:.1f} s "
                f"after it was made due; the removal: "
                f"{finished - claimed:.2f} s in {len(runs)} run(s), the result {result:,} events", bool(runs))

    # The steps' statements, as pg_stat_statements saw them (each drop is a statement of its own).
    for line in psql(su_url, r"""
        select format('%s: %s calls, mean %s ms, max %s ms', kind, sum(calls), round(sum(total_exec_time)::numeric / sum(calls), 1),
                      round(max(max_exec_time)::numeric, 1))
        from (select s.*, case when s.query ~* '^drop table' then 'drop table app.events_part_…'
                               when s.query ~* '^select count\(\*\)(::integer)?, max\(id\) from' then 'the count before a drop'
                               when s.query ~* 'api\.job_step' then 'api.job_step (a step of any job)'
                          end as kind
              from pg_stat_statements s
              where s.dbid = (select oid from pg_database where datname = current_database())) s
        where kind is not null group by kind order by kind""").splitlines():
        print(f"      {line}")

    reads = sorted(((d * 1000, t) for t, d in probe.records if during_low <= t < during_high), reverse=True)
    base_reads = [d * 1000 for t, d in probe.records if t < during_low]
    print(f"      the lock's probe (a read of app.events every 20 ms): before the removal {len(base_reads)} reads, "
          f"max {max(base_reads, default=0):.0f} ms; during it {len(reads)} reads, over 10 ms: "
          f"{sum(1 for d, _ in reads if d > 10)}, the longest: "
          + ", ".join(f"{d:.0f} ms at +{t - during_low:.1f} s" for d, t in reads[:8]))

    records = list(load.records)
    ok &= lm.requests_checked(load, records, ended - began)
    for phase, low, high in [("before", began, during_low), ("during", during_low, during_high),
                             ("after", during_high, ended)]:
        check(f"latency {phase} the removal, all: {latencies(records, low, high)}", True)
        check(f"latency {phase} the removal, uploads: {latencies(records, low, high, 'upload')}", True)
    print(f"      (the runner's wait counts as before; the drill stopped watching {removal_ended - during_high:.1f} s after the end)")

    say("checks")
    state = psql(owner_url, f"""
        select concat_ws(' ', coalesce(app.partition_expired('app.events', {RETENTION})::text, 'none'),
               (select count(*) from app.events e where e.created_at < app.partition_slot(now() - {RETENTION}, interval '1 day')),
               (select s.pruned_through from app.event_settings s))""").split()
    expired_left, older, pruned_through = state[0], int(state[1]), int(state[2])
    ok &= check(f"expired partitions left: {expired_left}; events before the oldest day kept: {older}",
                expired_left == "none" and older == 0)
    ok &= check(f"pruned_through {pruned_through} (the highest id removed: {expired_max})", pruned_through == int(expired_max))
    live_after = psql(owner_url, live_sql)
    ok &= check(f"the {loaded_live:,} events inside the retention as they were (count, ids, times, payloads)",
                live_after == live_before and int(live_after.split()[0]) == loaded_live)
    total_after, new = psql(owner_url, f"select count(*), count(*) filter (where id > {newest_before}) from app.events").split("|")
    ok &= check(f"app.events: {int(total_after):,} = {int(total_before):,} - {int(expired_count):,} removed + {int(new):,} written meanwhile",
                int(total_after) == int(total_before) - int(expired_count) + int(new))
    uploads = [r[6] for r in records if r[2] == "upload" and 200 <= r[3] < 300]
    found = psql(owner_url, "select count(*) from app.focus_sessions where id::text = any("
                 f"string_to_array('{' '.join(uploads)}', ' '))") if uploads else "0"
    ok &= check(f"uploads answered 2xx in app.focus_sessions: {found} of {len(uploads)}", int(found) == len(uploads))
    reconciliation = psql(owner_url, "select concat_ws(' ', (select count(*) from report.counter_reconciliation), "
                                     "(select count(*) from report.ledger_reconciliation))").split()
    ok &= check(f"report.counter_reconciliation: {reconciliation[0]} rows, report.ledger_reconciliation: {reconciliation[1]} rows",
                reconciliation == ["0", "0"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
