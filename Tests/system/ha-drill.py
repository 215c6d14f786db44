#!/usr/bin/env python3
"""ha-drill.py: steady load on the real server while something under it dies or restarts: a
database node (scripts/chaos failover, scripts/chaos secondary) or each server behind haproxy in
turn (scripts/chaos rolling). Python's standard library only; psql for the database side.

  ha-drill.py BASE_URL OWNER_URL CLIENTS STREAMS KILL_COMMAND
  ha-drill.py load BASE_URL OWNER_URL CLIENTS SECONDS   the same load without a kill, for SECONDS
                                                      (the restore drill); prints "N 2xx of M"
  ha-drill.py rolling BASE_URL OWNER_URL CLIENTS STREAMS READY_FILE HAPROXY_LOG
        the load through haproxy while the caller restarts the servers one by one: READY_FILE
        is written once the load runs, SIGUSR1 says the restarts are done (at most 300 s
        later), and the load goes on ROLLING_AFTER seconds more. Each client also reads GET /me
        and sends its purchases with an Idempotency-Key, as the app does.

BASE_URL may be https://127.0.0.1:PORT: DRILL_CA_FILE then names the CA to trust.

CLIENTS threads each buy shop items and upload focus sessions in turn (a purchase, an upload, a
purchase, ...), each as its own accounts (coins granted as focus_owner), recording every answer:
status, problem code, Retry-After, how long it took. STREAMS more accounts each hold a
text/event-stream on GET /events (their own login token, from a cursor taken before the load) and
are clients of the load too (their own thread, under their register token),
resuming with Last-Event-ID whenever a stream ends. After a warm-up KILL_COMMAND runs (a shell
command: the kill); the load runs on until writes succeed again and 10 s more, then stops.

Then, against OWNER_URL (the formation's read-write URL: the new primary):
  - every purchase answered 2xx has its spend row in app.coin_ledger and its app.user_items row,
    and no item was charged twice; every upload answered 2xx its app.focus_sessions row:
    acknowledged writes lost = 0;
  - no 500 (or other 5xx but 503), every 503 has Retry-After, no request without an answer
    within 15 s (a hang); in the rolling drill, every answer 2xx or 429 (a 503 fails it too:
    a restart behind haproxy is not an outage);
  - report.ledger_reconciliation is empty;
  - each stream received exactly its user's events after its cursor, in order, none twice.
Prints one line per figure (the shell's check format) and exits 1 if any check failed.
"""
import datetime
import http.client
import json
import os
import re
import secrets
import signal
import ssl
import subprocess
import sys
import threading
import time
import uuid

TIMEOUT = 15.0
WARMUP = 6.0
AFTER = 10.0
# Load after the last restart of the rolling drill: the streams move back and settle.
ROLLING_AFTER = 5.0
ROLLING_LIMIT = 300.0
# A stream's read timeout: above the server's 15 s heartbeat, so only a dead stream reaches it.
STREAM_TIMEOUT = 30.0


def now():
    return time.monotonic()


def connect(base, timeout, source="127.0.0.1"):
    """A connection to BASE (http:// or https://, the CA in DRILL_CA_FILE) from SOURCE, the
    client's own loopback address, so that many clients are not one address to the server's
    PER_IP_CONNECTION_LIMIT (or, behind haproxy, to its log)."""
    scheme, rest = base.split("//", 1)
    host, port = rest.split(":")
    if scheme == "https:":
        return http.client.HTTPSConnection(host, int(port), timeout=timeout, source_address=(source, 0),
                                           context=tls_context())
    return http.client.HTTPConnection(host, int(port), timeout=timeout, source_address=(source, 0))


_tls = []


def tls_context():
    # One context for every thread (it is thread-safe), made once: it reads the CA file.
    if not _tls:
        _tls.append(ssl.create_default_context(cafile=os.environ["DRILL_CA_FILE"]))
    return _tls[0]


def send(base, method, path, token="", body=None, source="127.0.0.1", key=None, connection=None):
    """(status, code, retry_after, body) of one request; status 0 without an answer in TIMEOUT
    (code: the exception). KEY: its Idempotency-Key. CONNECTION: a kept-alive one to send it on
    (closed after a failure: http.client opens it again for the next request), else one of its
    own."""
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if key:
        headers["Idempotency-Key"] = key
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    own = connection is None
    if own:
        connection = connect(base, TIMEOUT, source)
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        code = ""
        try:
            document = json.loads(raw) if raw else None
            if isinstance(document, dict) and isinstance(document.get("code"), str):
                code = document["code"]
        except ValueError:
            document = None
        return response.status, code, (response.getheader("Retry-After") or ""), document
    except (OSError, http.client.HTTPException) as error:
        connection.close()
        return 0, type(error).__name__, "", None
    finally:
        if own:
            connection.close()


def psql(url, sql):
    """One statement's answer; retried for 30 s while no node accepts writes (a failover). The
    statement goes on standard input: a drill's list of acknowledged writes is longer than an
    argument may be."""
    deadline = now() + 30
    while True:
        done = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", url, "-f", "-"],
                              input=sql, capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout.strip()
        if done.returncode != 2 or now() > deadline:
            raise SystemExit(f"psql failed: {done.stderr.strip()[:300]}")
        time.sleep(0.5)


def check(label, ok):
    print(f"  {label:<92} {'ok' if ok else 'FAILED'}", flush=True)
    return ok


class Account:
    def __init__(self, base, prefix):
        email = f"{prefix}-{secrets.randbelow(10**9)}@example.com"
        status, _, _, answer = send(base, "POST", "/auth/register",
                                    body={"email": email, "password": "correct horse", "display_name": prefix.capitalize()})
        if not 200 <= status < 300:
            raise SystemExit(f"register answered {status}")
        self.email = email
        self.user = answer["user"]["id"]
        self.token = answer["token"]


class Drill:
    def __init__(self, base, owner_url, clients, streams, kill, rolling=False):
        self.base, self.owner_url, self.kill = base, owner_url, kill
        # The rolling drill's clients read too and send their purchases with a key.
        self.rolling = rolling
        self.lock = threading.Lock()
        self.records = []  # (started, finished, kind, status, code, retry_after, user, key)
        self.stop = threading.Event()
        # The streams read on past the load's end, until the verification has seen them catch up.
        self.streams_stop = threading.Event()
        self.killed_at = None
        self.items = psql(owner_url, "select string_agg(id::text, ' ' order by price, id) from app.shop_items "
                          "where price > 0 and active").split()
        self.clients, self.streams = clients, streams
        self.received = {}  # stream user -> [event ids]
        self.cursors = {}
        self.reconnects = {}
        self.users = []

    # The load: purchases and uploads in turn, each client with accounts of its own. The rolling
    # drill's clients keep their connection to haproxy, as the app does; haproxy then sends
    # their requests on its kept-alive connections to the servers, which a drain must close
    # without losing one.
    def client(self, number, accounts):
        connection = connect(self.base, TIMEOUT, f"127.0.0.{10 + number}") if self.rolling else None
        account = 0
        bought = 0
        # Sessions uploaded back to back from 7 days ago, 3 minutes each, 1 minute apart.
        start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=6, hours=23)
        slot = 0
        while not self.stop.is_set():
            user = accounts[account]
            if self.rolling:
                self.request(number, "read", user, "", "GET", "/me", None, connection=connection)
            item = self.items[bought % len(self.items)]
            self.request(number, "purchase", user, item, "POST", "/shop/purchases", {"item_id": item},
                         str(uuid.uuid4()) if self.rolling else None, connection)
            bought += 1
            if bought % len(self.items) == 0:
                account = (account + 1) % len(accounts)
            begun = start + datetime.timedelta(minutes=4 * slot)
            slot += 1
            session = str(uuid.uuid4())
            self.request(number, "upload", user, session, "POST", "/focus-sessions", {
                "id": session, "started_at": begun.isoformat().replace("+00:00", "Z"),
                "ended_at": (begun + datetime.timedelta(minutes=3)).isoformat().replace("+00:00", "Z"),
                "planned_minutes": 3}, connection=connection)
        if connection:
            connection.close()

    def request(self, number, kind, account, key, method, path, body, idempotency_key=None, connection=None):
        started = now()
        status, code, retry_after, _ = send(self.base, method, path, account.token, body, f"127.0.0.{10 + number}",
                                            idempotency_key, connection)
        finished = now()
        with self.lock:
            self.records.append((started, finished, kind, status, code, retry_after, account.user, key))
        if status == 503:
            # A client waits Retry-After (1 s) before it tries again; these wait 0.1 s, so the
            # gap is measured to a tenth of a second.
            time.sleep(0.1)

    # A stream reader: SSE frames (http.client undoes haproxy's chunked coding, if any); resumes
    # with Last-Event-ID when the stream ends. Only frames with an event count as received: a
    # stopping server's last frame is its retry hint, an id (the cursor) without data.
    def stream(self, user, token, number):
        last = self.cursors[user]
        while not self.streams_stop.is_set():
            connection = connect(self.base, STREAM_TIMEOUT, f"127.0.0.{10 + number}")
            try:
                connection.request("GET", "/events", headers={
                    "Accept": "text/event-stream", "Authorization": f"Bearer {token}", "Last-Event-ID": str(last)})
                response = connection.getresponse()
                frame_id, has_event = None, False
                while response.status == 200 and not self.streams_stop.is_set():
                    line = response.readline()
                    if not line:
                        break
                    line = line.decode().rstrip("\r\n")
                    if line.startswith("id:"):
                        frame_id = int(line[3:].strip())
                    elif line.startswith(("event:", "data:")):
                        has_event = True
                    elif not line:
                        if frame_id is not None:
                            last = frame_id
                            if has_event:
                                with self.lock:
                                    self.received[user].append(frame_id)
                        frame_id, has_event = None, False
            except (OSError, http.client.HTTPException, ValueError):
                pass
            finally:
                connection.close()
            if not self.streams_stop.is_set():
                with self.lock:
                    self.reconnects[user] += 1
                time.sleep(0.5)

    def first_failure_after_kill(self):
        """When the first answer other than 2xx after the kill came (the old primary's backends
        live on for a moment after their postmaster: what they commit is replicated first)."""
        with self.lock:
            failures = [r[1] for r in self.records if r[1] >= self.killed_at and not 200 <= r[3] < 300]
        return min(failures, default=None)

    def first_write_after_kill(self):
        """When the first write that started after the first failure succeeded (None: not yet)."""
        failed = self.first_failure_after_kill()
        if failed is None:
            return None
        with self.lock:
            writes = [r for r in self.records if r[0] >= failed and 200 <= r[3] < 300]
        return min((r[1] for r in writes), default=None)

    def start(self):
        """Accounts, coins, the streams and the load's threads, started; returns the threads and
        when the load began."""
        # A client buys every item of an account, then moves to its next: the rolling drill's
        # faster load (no database dies) needs more accounts to keep buying new items.
        per_client = 4 if self.rolling else 2
        say(f"registering {self.clients * per_client + self.streams} accounts")
        accounts = [[Account(self.base, "drill") for _ in range(per_client)] for _ in range(self.clients)]
        self.users = [a.user for group in accounts for a in group]
        psql(self.owner_url, "select count(app.grant_coins(u::uuid, 1000000, 'failover drill')) from unnest("
             f"string_to_array('{' '.join(self.users)}', ' ')) as u")
        stream_threads = []
        for _ in range(self.streams):
            account = Account(self.base, "drill")
            _, _, _, login = send(self.base, "POST", "/auth/login",
                                  body={"email": account.email, "password": "correct horse"})
            _, _, _, cursor = send(self.base, "GET", "/events", account.token)
            self.cursors[account.user] = cursor["next"]
            self.received[account.user] = []
            self.reconnects[account.user] = 0
            # The stream's user is a client of its own too (its register token): its purchases and
            # then its uploads (balance.changed each) go on through the kill.
            accounts.append([account])
            self.users.append(account.user)
            stream_threads.append(threading.Thread(target=self.stream, args=(account.user, login["token"], len(accounts) - 1),
                                                   daemon=True))
        psql(self.owner_url, "select count(app.grant_coins(u::uuid, 1000000, 'failover drill')) from unnest("
             f"string_to_array('{' '.join(self.received)}', ' ')) as u")
        # The uploads go back 7 days, and no session starts before its account (docs/economy.md):
        # the drill's accounts count as made 8 days ago.
        psql(self.owner_url, "update app.users set created_at = now() - interval '8 days' where id::text = any("
             f"string_to_array('{' '.join(self.users)}', ' '))")
        for thread in stream_threads:
            thread.start()
        threads = [threading.Thread(target=self.client, args=(n, accounts[n]), daemon=True) for n in range(len(accounts))]
        began = now()
        for thread in threads:
            thread.start()
        return threads, began

    def finish(self, threads):
        self.stop.set()
        for thread in threads:
            thread.join(TIMEOUT + 5)

    def run(self):
        threads, began = self.start()
        time.sleep(WARMUP)
        self.last_event_before_kill = int(psql(self.owner_url, "select coalesce(max(id), 0) from app.events"))
        self.killed_at = now()
        subprocess.run(["bash", "-c", self.kill], check=True)
        say(f"killed ({self.kill.split(';')[0][:60]}...); load goes on")
        deadline = self.killed_at + 180
        # A node that dies may fail nothing at first (the secondary: commits wait, then go on).
        while now() < deadline and (self.first_write_after_kill() is None if self.first_failure_after_kill()
                                    else now() - self.killed_at < 8):
            time.sleep(0.1)
        recovered = self.first_write_after_kill()
        time.sleep(AFTER)
        self.finish(threads)
        return self.verify(began, recovered)

    def run_rolling(self, ready_file, haproxy_log):
        restarted = threading.Event()
        # Set before the ready file exists: the caller's signal can only come after it.
        signal.signal(signal.SIGUSR1, lambda *_: restarted.set())
        threads, began = self.start()
        time.sleep(WARMUP)
        self.last_event_before_kill = int(psql(self.owner_url, "select coalesce(max(id), 0) from app.events"))
        self.killed_at = now()
        with open(ready_file, "w") as ready:
            ready.write(f"{os.getpid()}\n")
        deadline = now() + ROLLING_LIMIT
        while not restarted.wait(0.2) and now() < deadline:
            pass
        ok = check(f"the caller said the restarts were done within {ROLLING_LIMIT:.0f} s", restarted.is_set())
        time.sleep(ROLLING_AFTER)
        self.finish(threads)
        return self.verify_rolling(began, haproxy_log) and ok

    def summary(self, began):
        records = self.records
        kinds = {}
        for r in records:
            kinds.setdefault((r[2], r[3], r[4]), 0)
            kinds[(r[2], r[3], r[4])] += 1
        summary = ", ".join(f"{count} {kind} {status}{' ' + code if code else ''}"
                            for (kind, status, code), count in sorted(kinds.items()))
        print(f"  answers: {len(records)} in {records[-1][1] - began:.1f} s: {summary}", flush=True)

    def verify(self, began, recovered):
        ok = True
        records = self.records
        self.summary(began)
        failed = self.first_failure_after_kill()
        if failed is None:
            recovered = self.killed_at
        elif recovered is None:
            return check("writes succeeded again after the kill: never within 180 s", False)
        else:
            gap = recovered - self.killed_at
            ok &= check(f"writes succeed again {gap:.1f} s after the kill (first failure after {failed - self.killed_at:.1f} s; "
                        "first 2xx write begun after it)", True)
        done = sorted(r[1] for r in records if r[1] >= self.killed_at and 200 <= r[3] < 300)
        stalls = [b - a for a, b in zip([self.killed_at] + done, done)]
        print(f"  longest time without a completed 2xx write after the kill: {max(stalls, default=0):.1f} s", flush=True)
        during = [r for r in records if r[1] >= self.killed_at and r[0] <= recovered]
        failed = [r for r in during if not 200 <= r[3] < 300]
        ok &= check(f"during the gap: {len(during)} answers, {len(failed)} not 2xx: "
                    f"{sorted(set((r[3], r[4], r[5]) for r in failed))[:4]}", True)
        bad = [r for r in records if r[3] >= 500 and r[3] != 503]
        ok &= check(f"no 5xx but 503 (found {len(bad)})", not bad)
        no_retry = [r for r in records if r[3] == 503 and not r[5]]
        ok &= check(f"every 503 has Retry-After ({len([r for r in records if r[3] == 503])} 503s, {len(no_retry)} without)",
                    not no_retry)
        hangs = [r for r in records if r[3] == 0]
        slowest = max(r[1] - r[0] for r in records)
        ok &= check(f"no request without an answer (none: {len(hangs)} {sorted(set(r[4] for r in hangs))}; "
                    f"slowest answer {slowest:.2f} s)", not hangs)
        ok &= self.verify_writes("the new primary's")
        ok &= self.verify_streams("the kill")
        return ok

    def verify_rolling(self, began, haproxy_log):
        ok = True
        records = self.records
        self.summary(began)
        counts = {}
        for r in records:
            counts[r[2]] = counts.get(r[2], 0) + 1
        print(f"  requests per kind: {', '.join(f'{kind} {count}' for kind, count in sorted(counts.items()))}; "
              f"{len(records) / (records[-1][1] - began):.0f} a second", flush=True)
        failed = [r for r in records if not (200 <= r[3] < 300 or r[3] == 429)]
        ok &= check(f"every request answered 2xx or 429: {len(records)} requests, failed {len(failed)} "
                    f"{sorted(set((r[2], r[3], r[4]) for r in failed))[:4]}", not failed)
        slowest = max(records, key=lambda r: r[1] - r[0])
        print(f"  longest answer: {slowest[1] - slowest[0]:.2f} s (a {slowest[2]}, {slowest[3]}, sent "
              f"{slowest[0] - self.killed_at:+.1f} s into the restarts)", flush=True)
        ok &= self.verify_writes("the database's")
        ok &= self.verify_streams("the restarts began")
        ok &= self.verify_haproxy(haproxy_log)
        return ok

    def verify_writes(self, where):
        """Acknowledged writes in the database, none charged twice, the ledger reconciled."""
        ok = True
        records = self.records
        purchases = {(r[6], r[7]) for r in records if r[2] == "purchase" and 200 <= r[3] < 300}
        uploads = {(r[6], r[7]) for r in records if r[2] == "upload" and 200 <= r[3] < 300}
        # Purchases that only ever got 503 (the clients come back to an item on their next round).
        unacked = {(r[6], r[7]) for r in records if r[2] == "purchase" and r[3] == 503} - purchases
        values = ",".join(f"('{u}'::uuid,'{i}'::uuid)" for u, i in purchases) or "(null::uuid,null::uuid)"
        lost_purchases = int(psql(self.owner_url, f"select count(*) from (values {values}) as a(u, i) "
                                  "where not exists (select from app.coin_ledger c where c.user_id = a.u and c.item_id = a.i "
                                  "and c.entry = 'spend') or not exists (select from app.user_items x "
                                  "where x.user_id = a.u and x.item_id = a.i)"))
        values = ",".join(f"('{u}'::uuid,'{s}'::uuid)" for u, s in uploads) or "(null::uuid,null::uuid)"
        lost_uploads = int(psql(self.owner_url, f"select count(*) from (values {values}) as a(u, s) "
                                "where not exists (select from app.focus_sessions f where f.id = a.s and f.user_id = a.u)"))
        ok &= check(f"acknowledged purchases {len(purchases)}, in {where} ledger and items: "
                    f"{len(purchases) - lost_purchases}, lost: {lost_purchases}", lost_purchases == 0)
        ok &= check(f"acknowledged uploads {len(uploads)}, in {where} sessions: {len(uploads) - lost_uploads}, "
                    f"lost: {lost_uploads}", lost_uploads == 0)
        # An item is bought once: a second spend for it (a purchase sent twice, by a retry) is a
        # charge twice.
        twice = psql(self.owner_url, "select count(*) from (select from app.coin_ledger where entry = 'spend' and user_id = "
                     f"any(string_to_array('{' '.join(self.users)}', ' ')::uuid[]) group by user_id, item_id having count(*) > 1) d")
        ok &= check(f"items charged twice: {twice}", twice == "0")
        if unacked:
            values = ",".join(f"('{u}'::uuid,'{i}'::uuid)" for u, i in unacked)
            kept = psql(self.owner_url, f"select count(*) from (values {values}) as a(u, i) where exists "
                        "(select from app.user_items x where x.user_id = a.u and x.item_id = a.i)")
            print(f"  purchases only ever answered 503: {len(unacked)}, of which committed all the same (their commit "
                  f"reached the standby before the connection broke; a retry answers 200 already_owned): {kept}", flush=True)
        reconciliation = psql(self.owner_url, "select count(*) from report.ledger_reconciliation")
        ok &= check(f"the ledger reconciles (report.ledger_reconciliation rows: {reconciliation})", reconciliation == "0")
        return ok

    def verify_streams(self, moment):
        """Each stream caught up with exactly its events, in order, none twice."""
        ok = True
        deadline = now() + 30
        expected = {}
        while True:
            for user, cursor in self.cursors.items():
                ids = psql(self.owner_url, f"select coalesce(string_agg(id::text, ' ' order by id), '') from app.events "
                           f"where (user_id = '{user}' or user_id is null) and id > {cursor}")
                expected[user] = [int(i) for i in ids.split()]
            with self.lock:
                caught_up = all(self.received[u][-len(expected[u]):] == expected[u] if expected[u] else True
                                for u in expected)
            if caught_up or now() > deadline:
                break
            time.sleep(0.5)
        self.streams_stop.set()
        for user in self.cursors:
            with self.lock:
                got = list(self.received[user])
            want = expected[user]
            twice = len(got) - len(set(got))
            missed = len(set(want) - set(got))
            ordered = got == sorted(got)
            later = len([i for i in want if i > self.last_event_before_kill])
            ok &= check(f"stream {user[:8]}: {len(want)} events after its cursor ({later} after {moment}), received {len(got)}, "
                        f"missed {missed}, twice {twice}, in order: {ordered}, reconnects {self.reconnects[user]}",
                        got == want)
            if missed:
                # Which ones, against the last event before the kill and the stream's neighbours.
                for i in sorted(set(want) - set(got))[:5]:
                    print(f"    missed event {i} (last before the kill {self.last_event_before_kill}): "
                          + psql(self.owner_url, f"select format('%s, created %s', type, created_at) from app.events where id = {i}")
                          + f"; received before it {max([g for g in got if g < i], default=None)}, after it "
                          f"{min([g for g in got if g > i], default=None)}", flush=True)
        return ok

    def verify_haproxy(self, path):
        """haproxy's view (its httplog lines): requests retried on a server after a failed try,
        redispatched to the other, and how sessions ended. The termination state's first two
        letters: `--` a normal end, `C?` the client's side (a stream reader closing, the load's
        end), `S?` the server's: a server that closed or refused mid-request, which a drain must
        never do."""
        retried = redispatched = logged = 0
        states = {}
        server_ended = []
        # ... 0/0/1/2/3 200 512 - - ---- 10/10/2/1/+1 0/0 "GET /me HTTP/1.1"
        line_pattern = re.compile(r' (-?\d+)/(-?\d+)/(-?\d+)/(-?\d+)/\+?(-?\d+) (\d{3}) \S+ \S+ \S+ (\S{4}) '
                                  r'\d+/\d+/\d+/\d+/(\+?)(\d+) \d+/\d+ "(\S+) (\S+)')
        with open(path, errors="replace") as log:
            for line in log:
                match = line_pattern.search(line)
                if not match:
                    continue
                logged += 1
                state, plus, retries, method, target = match.group(7, 8, 9, 10, 11)
                retried += int(retries) > 0
                redispatched += plus == "+"
                states[state[:2]] = states.get(state[:2], 0) + 1
                if state[0] == "S":
                    server_ended.append(f"{state[:2]} {method} {target.split('?')[0]} {match.group(6)}")
        print(f"  haproxy: {logged} requests logged, {retried} retried after a failed try, {redispatched} redispatched "
              f"to the other server; ended {', '.join(f'{s} {n}' for s, n in sorted(states.items()))}", flush=True)
        return check(f"no request ended by a server's side in haproxy's log (S? states: {len(server_ended)} "
                     f"{sorted(set(server_ended))[:3]})", not server_ended)


def say(text):
    print(f"\033[1m==> {text}\033[0m", file=sys.stderr, flush=True)


def load(base, owner_url, clients, seconds):
    drill = Drill(base, owner_url, clients, 0, "")
    accounts = [[Account(base, "restore")] for _ in range(clients)]
    psql(owner_url, "select count(app.grant_coins(u::uuid, 1000000, 'restore drill')) from unnest("
         f"string_to_array('{' '.join(a[0].user for a in accounts)}', ' ')) as u")
    threads = [threading.Thread(target=drill.client, args=(n, accounts[n]), daemon=True) for n in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    drill.finish(threads)
    good = len([r for r in drill.records if 200 <= r[3] < 300])
    print(f"{good} 2xx of {len(drill.records)}")
    return 0 if good == len(drill.records) else 1


def main(argv):
    if len(argv) == 6 and argv[1] == "load":
        return load(argv[2], argv[3], int(argv[4]), float(argv[5]))
    if len(argv) == 8 and argv[1] == "rolling":
        drill = Drill(argv[2], argv[3], int(argv[4]), int(argv[5]), "", rolling=True)
        return 0 if drill.run_rolling(argv[6], argv[7]) else 1
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    drill = Drill(argv[1], argv[2], int(argv[3]), int(argv[4]), argv[5])
    return 0 if drill.run() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
