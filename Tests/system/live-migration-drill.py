#!/usr/bin/env python3
"""live-migration-drill.py: migrations applied by `focus-island migrate` to a busy table while
the real server answers a steady load (scripts/chaos live-migration). Python's standard library
only; psql for the database side; requests are sent and accounts made by ha-drill.py's functions.

  live-migration-drill.py BASE_URL OWNER_URL SERVER SQL_COPY FIXTURE...

CLIENTS threads (LIVE_CLIENTS, 4), each paced to RATE requests a second (LIVE_RATE, 10; the
clients' requests staggered, so the load is steady), with
accounts of their own (coins granted as focus_owner, made 8 days ago), send in turn: a read of
their sessions (GET /focus-sessions), a purchase (POST /shop/purchases, the next item the
account lacks; a new account once it owns them all), a read of GET /me and an upload (POST
/focus-sessions, offline, 3 minutes, back to back from 7 days ago): the upload reads
focus_sessions (the overlap check), then inserts. Every request's status and latency is kept.

After LIVE_BEFORE seconds (15) of load, the migrator runs once with nothing pending (the
replacement of sql/app, api and report alone), then once per FIXTURE, each copied into
SQL_COPY/migrations first (SQL_DIR=SQL_COPY), in order: as a deploy of each step would. Then
LIVE_AFTER seconds (15) more load. Printed, one line per figure (the shell's check format):
  - each migrate: how long it took, its attempts (1 + the retries its log tells of), exit status;
  - requests answered, by kind, and failed: anything but 2xx (every request of the load is
    built to succeed, so no 4xx is expected either), or no answer within 15 s;
  - p50 / p99 / max latency of the requests started before, during and after the migrations;
  - the index built and valid, the constraint validated, each upload answered 2xx in the table.
Exits 1 if a migrate failed, a request failed or a check failed.
"""
import datetime
import importlib.util
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("ha_drill", HERE / "ha-drill.py")
ha = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ha)
Account, check, psql, send, now = ha.Account, ha.check, ha.psql, ha.send, ha.now

CLIENTS = int(os.environ.get("LIVE_CLIENTS", "4"))
RATE = float(os.environ.get("LIVE_RATE", "10"))
BEFORE = float(os.environ.get("LIVE_BEFORE", "15"))
AFTER = float(os.environ.get("LIVE_AFTER", "15"))


def say(text):
    print(f"\033[1m==> {text}\033[0m", file=sys.stderr, flush=True)


def percentile(values, fraction):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Load:
    def __init__(self, base, owner_url):
        self.base, self.owner_url = base, owner_url
        self.lock = threading.Lock()
        self.records = []  # (started, finished, kind, status, code, user, key)
        self.stop = threading.Event()
        self.ran_out = 0  # clients that stopped early, every account's items bought
        self.items = psql(owner_url, "select string_agg(id::text, ' ' order by price, id) from app.shop_items "
                          "where price > 0 and active").split()

    def request(self, kind, account, key, method, path, body=None):
        # Paced: each request at its own time, RATE a second per client, the clients' times
        # staggered, so the load is steady rather than in bursts.
        self.stop.wait(max(0.0, self.due[threading.current_thread().name] - now()))
        self.due[threading.current_thread().name] += 1 / RATE
        started = now()
        status, code, _, _ = send(self.base, method, path, account.token, body)
        with self.lock:
            self.records.append((started, now(), kind, status, code, account.user, key))

    def client(self, accounts):
        account, bought, slot = 0, 0, 0
        start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=6, hours=23)
        while not self.stop.is_set():
            user = accounts[account]
            self.request("read", user, "", "GET", "/focus-sessions?limit=20")
            item = self.items[bought % len(self.items)]
            self.request("purchase", user, item, "POST", "/shop/purchases", {"item_id": item})
            bought += 1
            self.request("read", user, "", "GET", "/me")
            begun = start + datetime.timedelta(minutes=4 * slot)
            slot += 1
            session = str(uuid.uuid4())
            self.request("upload", user, session, "POST", "/focus-sessions", {
                "id": session, "started_at": begun.isoformat().replace("+00:00", "Z"),
                "ended_at": (begun + datetime.timedelta(minutes=3)).isoformat().replace("+00:00", "Z"),
                "planned_minutes": 3})
            if bought % len(self.items) == 0:
                # Every item owned: the next account (each has its own sessions' slots too).
                account += 1
                if account == len(accounts):
                    with self.lock:
                        self.ran_out += 1
                    return

    def start(self):
        # A client buys each item once per account, a purchase every fourth request: accounts
        # enough for the whole run, the migrations given 30 s.
        per_client = math.ceil(RATE / 4 * (BEFORE + AFTER + 30) / len(self.items)) + 1
        say(f"registering {CLIENTS * per_client} accounts")
        groups = [[Account(self.base, "live") for _ in range(per_client)] for _ in range(CLIENTS)]
        users = " ".join(a.user for group in groups for a in group)
        psql(self.owner_url, "select count(app.grant_coins(u::uuid, 1000000, 'live migration drill')) from unnest("
             f"string_to_array('{users}', ' ')) as u")
        # The uploads go back 7 days, and no session starts before its account (docs/economy.md).
        psql(self.owner_url, "update app.users set created_at = now() - interval '8 days' where id::text = any("
             f"string_to_array('{users}', ' '))")
        self.threads = [threading.Thread(target=self.client, args=(group,), name=f"client {n}", daemon=True)
                        for n, group in enumerate(groups)]
        self.due = {f"client {n}": now() + n / (RATE * CLIENTS) for n in range(CLIENTS)}
        for thread in self.threads:
            thread.start()

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(ha.TIMEOUT + 5)


def requests_checked(load, records, seconds):
    """The load's requests by kind, the failed ones (anything but 2xx) by kind, status and code,
    and whether every client ran to the end, as check lines; true when none failed."""
    kinds = {}
    for r in records:
        kinds[r[2]] = kinds.get(r[2], 0) + 1
    failed = [r for r in records if not 200 <= r[3] < 300]
    ok = check(f"requests: {len(records)} in {seconds:.0f} s ({len(records) / seconds:.0f}/s; "
               + ", ".join(f"{n} {k}s" for k, n in sorted(kinds.items())) + f"), failed: {len(failed)}", not failed)
    ok &= check(f"the load ran to the end: {CLIENTS - load.ran_out} of {CLIENTS} clients", load.ran_out == 0)
    shown = {}
    for r in failed:
        shown[(r[2], r[3], r[4])] = shown.get((r[2], r[3], r[4]), 0) + 1
    for (kind, status, code), n in sorted(shown.items(), key=lambda x: -x[1])[:8]:
        print(f"      {n} × {kind} answered {status} {code}")
    return ok


def migrate(server, sql_copy, label, log_path):
    """(seconds, attempts, exit status) of one `focus-island migrate`."""
    env = dict(os.environ, SQL_DIR=str(sql_copy))
    started = now()
    with open(log_path, "a") as log:
        log.write(f"--- {label}\n")
        log.flush()
        done = subprocess.run([server, "migrate"], env=env, stdout=log, stderr=subprocess.STDOUT)
    took = now() - started
    text = pathlib.Path(log_path).read_text().rsplit(f"--- {label}\n", 1)[1]
    retries = len(re.findall(r"attempt \d+ of \d+ failed", text))
    return started, took, 1 + retries, done.returncode, text


def main(argv):
    if len(argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    base, owner_url, server, sql_copy = argv[1], argv[2], argv[3], pathlib.Path(argv[4])
    fixtures = [pathlib.Path(f) for f in argv[5:]]
    log_path = sql_copy.parent / "migrate.log"
    load = Load(base, owner_url)
    load.start()
    began = now()
    say(f"load: {CLIENTS} clients at {RATE:g} requests/s each; the migrations in {BEFORE:g} s")
    load.stop.wait(BEFORE)

    ok = True
    steps = []  # (label, started, took, attempts, status)
    migrations_began = now()
    for label, fixture in [("nothing pending (sql/app, api, report)", None)] + [(f.name, f) for f in fixtures]:
        if fixture is not None:
            shutil.copy(fixture, sql_copy / "migrations" / fixture.name)
        started, took, attempts, status, text = migrate(server, sql_copy, label, log_path)
        steps.append((label, started, took, attempts, status))
        if status != 0:
            ok = False
            sys.stderr.write(text[-2000:])
            break
    migrations_ended = now()
    load.stop.wait(AFTER)
    load.finish()
    ended = now()

    records = list(load.records)
    for label, started, took, attempts, status in steps:
        during = [r[1] - r[0] for r in records if started <= r[0] <= started + took]
        ok &= check(f"migrate, {label}: {took:.2f} s, {'applied at the first try' if attempts == 1 else f'{attempts} attempts'},"
                    f" exit {status}; {len(during)} requests meanwhile, max {max(during, default=0) * 1000:.0f} ms",
                    status == 0)
    ok &= check(f"the migrations in all: {migrations_ended - migrations_began:.2f} s, "
                f"{sum(s[3] - 1 for s in steps)} retries", all(s[4] == 0 for s in steps) and len(steps) == len(fixtures) + 1)

    ok &= requests_checked(load, records, ended - began)
    for phase, low, high in [("before", began, migrations_began), ("during", migrations_began, migrations_ended),
                             ("after", migrations_ended, ended)]:
        latencies = [(r[1] - r[0]) * 1000 for r in records if low <= r[0] < high]
        check(f"latency {phase} the migrations ({len(latencies)} requests): p50 {percentile(latencies, 0.5):.0f} ms, "
              f"p99 {percentile(latencies, 0.99):.0f} ms, max {max(latencies, default=0):.0f} ms", True)

    # What the migrations made, and the acknowledged uploads.
    state = psql(owner_url, "select concat_ws(' ', coalesce((select i.indisvalid::text from pg_index i"
                 " where i.indexrelid = to_regclass('app.focus_sessions_created')), 'missing'),"
                 " coalesce((select c.convalidated::text from pg_constraint c where c.conname = 'focus_sessions_minutes_within_a_day'"
                 " and c.conrelid = 'app.focus_sessions'::regclass), 'missing'), (select count(*) from app.focus_sessions))")
    valid, validated, rows = state.split()
    ok &= check(f"index app.focus_sessions_created valid: {valid}; constraint validated: {validated}; {int(rows):,} sessions",
                valid == "true" and validated == "true")
    uploads = [r[6] for r in records if r[2] == "upload" and 200 <= r[3] < 300]
    found = psql(owner_url, "select count(*) from app.focus_sessions where id::text = any("
                 f"string_to_array('{' '.join(uploads)}', ' '))") if uploads else "0"
    ok &= check(f"uploads answered 2xx in app.focus_sessions: {found} of {len(uploads)}", int(found) == len(uploads))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
