#!/usr/bin/python3
"""bench-streams: holds many event streams (events_list) open against a running server and prints
figures (nothing asserted): server RSS idle and with N streams open, commit-to-phone latency
of events while they are open, and the health check's req/s (wrk) beside them.

usage: bench-streams.py PORT SERVER_PID TOKENS_FILE USER_IDS_FILE OWNER_URL COUNT [COUNT ...]
Tokens and user ids are one a line, in the same order; streams are spread over them round robin.
Latency is measured at the first COUNT, twice: events written by no server (coins granted with
app.grant_coins by psql as the owner: the listener hears of them at its 10 ms tick), then events
written through this server (me_update of a setting with a second token of the same user, whose
settings.changed goes to the streams of the user's other tokens: the request pokes the listener).
100 events each, one transaction each, 20 ms apart; each stream that receives one records
(arrival time - the event's created_at): the database's clock and this one are the machine's.
Last, the listener's own cost: api.events_ring from the newest id (the common answer: no one to
ring) on one connection for 3 s (pgbench): its time per call, and its backend's CPU per call
(from /proc: the database is on this machine) and so its share of a core at the listener's 100
calls a second.
Standard library only (asyncio)."""
import asyncio, json, os, subprocess, sys, tempfile, time
from datetime import datetime

# Each operation's path by operationId (scripts/bench exports them: scripts/bench.d/paths.py).
PATHS = {name.removeprefix("BENCH_PATH_"): value
         for name, value in os.environ.items() if name.startswith("BENCH_PATH_")}

port, pid, tokens_file, ids_file, owner_url = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
counts = [int(c) for c in sys.argv[6:]]
tokens = open(tokens_file).read().split()
user_ids = open(ids_file).read().split()
latencies = []
measuring = None  # the event type being timed


def rss_mib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def created_at(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


async def hold(token, opened):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write(f"GET {PATHS['events_list']} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                 f"Authorization: Bearer {token}\r\n\r\n".encode())
    await writer.drain()
    status = (await reader.readline()).split()[1]
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    opened.set_result(status.decode())
    # The body is SSE text, ended by the close (no chunked coding: Server/MHD/EventsEndpoint.swift).
    while True:
        line = await reader.readline()
        if not line:
            return
        if measuring and line.startswith(b"data: "):
            event = json.loads(line[6:])
            if event.get("type") == measuring:
                latencies.append(time.time() - created_at(event["created_at"]))


async def open_streams(count, start, tasks):
    for batch in range(start, start + count, 500):
        futures = []
        for index in range(batch, min(batch + 500, start + count)):
            opened = asyncio.get_running_loop().create_future()
            tasks.append(asyncio.create_task(hold(tokens[index % len(tokens)], opened)))
            futures.append(opened)
        results = await asyncio.gather(*futures)
        refused = [status for status in results if status != "200"]
        if refused:
            statuses = ", ".join(f"{refused.count(s)} × {s}" for s in sorted(set(refused)))
            raise SystemExit(f"{len(refused)} streams were refused ({statuses})")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


def health_rps():
    out = subprocess.run(["wrk", "-t2", "-c32", "-d5s", f"http://127.0.0.1:{port}{PATHS['health']}"],
                         capture_output=True, text=True).stdout
    return next((l.split()[1] for l in out.splitlines() if l.startswith("Requests/sec")), "-")


def report(label, count):
    print(f"  commit-to-phone latency with {count} streams open, {label}: p50 {percentile(latencies, 50):.1f} ms, "
          f"p99 {percentile(latencies, 99):.1f} ms ({len(latencies)} deliveries of 100 events)", flush=True)
    latencies.clear()


async def write_through_server():
    """100 me_update requests, 20 ms apart, on one keep-alive connection, each with a second token of
    user i % 100 (its own stream's token is the first), turning show_tip_on_timer off and on."""
    users = user_ids[:100]
    issued = subprocess.run(["psql", "-X", "-At", owner_url], text=True, check=True, capture_output=True,
                            input="".join(f"select api.issue_token('{u}') ->> 'token';\n" for u in users)).stdout.split()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for i in range(100):
        body = json.dumps({"settings": {"show_tip_on_timer": (i // len(users)) % 2 == 1}})
        writer.write(f"PATCH {PATHS['me_update']} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {issued[i % len(issued)]}\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode())
        await writer.drain()
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        await reader.readexactly(length)
        await asyncio.sleep(0.02)
    writer.close()


def ring_cost():
    """api.events_ring from the newest id on one connection for 3 s (pgbench): its wall time per call,
    and the CPU its backend spent per call (from /proc, between 0.5 s and 2.5 s into the run)."""
    after = subprocess.run(["psql", "-X", "-At", owner_url, "-c", "select api.newest_event_id()"],
                           text=True, check=True, capture_output=True).stdout.strip()
    with tempfile.NamedTemporaryFile("w", suffix=".pgbench") as script:
        script.write("select * from api.events_ring(:after);\n")
        script.flush()
        bench = subprocess.Popen(["pgbench", "-n", "-T", "3", "-M", "prepared", "-D", f"after={after}", "-f", script.name,
                                  owner_url], text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        backend = subprocess.run(["psql", "-X", "-At", owner_url, "-c",
                                  "select pid from pg_stat_activity where application_name = 'pgbench' limit 1"],
                                 text=True, capture_output=True).stdout.strip()

        def ticks():
            try:
                fields = open(f"/proc/{backend}/stat").read().rsplit(")", 1)[1].split()
                return int(fields[11]) + int(fields[12]), time.monotonic()
            except (OSError, ValueError, IndexError):
                return None, time.monotonic()
        first, began = ticks()
        time.sleep(2)
        last, ended = ticks()
        out = bench.communicate()[0]
    tps = next((float(l.split("=")[1].split()[0]) for l in out.splitlines() if l.startswith("tps")), 0.0)
    if not tps:
        return
    line = f"  api.events_ring with nothing to ring: {1000 / tps:.3f} ms a call (wall, one connection)"
    if first is not None and last is not None:
        cpu = (last - first) / os.sysconf("SC_CLK_TCK") / (ended - began)  # the backend's share of a core
        line += f", {cpu / tps * 1000:.3f} ms of its backend's CPU a call: at 100 calls/s {cpu / tps * 100 * 100:.1f}% of a core"
    print(line, flush=True)


async def main():
    global measuring
    print(f"  RSS idle: {rss_mib():.1f} MiB; health: {health_rps()} req/s", flush=True)
    tasks, opened = [], 0
    for index, count in enumerate(counts):
        await open_streams(count - opened, opened, tasks)
        opened = count
        await asyncio.sleep(1)
        print(f"  RSS with {count} streams open: {rss_mib():.1f} MiB; health: {health_rps()} req/s", flush=True)
        if index == 0:
            grants = "".join(f"select app.grant_coins('{user_ids[i % len(user_ids)]}', 1, 'bench');"
                             f"select pg_sleep(0.02);\n" for i in range(100))
            measuring = "balance.changed"
            await asyncio.to_thread(subprocess.run, ["psql", "-X", "-q", "-o", "/dev/null", owner_url],
                                    input=grants, text=True, check=True)
            await asyncio.sleep(1)
            measuring = None
            report("written by psql", count)
            measuring = "settings.changed"
            await write_through_server()
            await asyncio.sleep(1)
            measuring = None
            report("written through the server", count)
    for task in tasks:
        task.cancel()
    ring_cost()


asyncio.run(main())
