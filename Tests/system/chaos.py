#!/usr/bin/env python3
"""chaos.py: hostile HTTP clients for scripts/chaos and the fast checks of scripts/test.

Python's standard library only (Debian's python3). Loopback only: every client connects to the
URL given, from 127.0.0.x source addresses (the whole 127/8 is local on Linux), so many
"clients" can be simulated without leaving the machine. Each subcommand prints one line per
check, with its figures, and exits 1 if the check failed; each stops by itself.

  badinput URL [TOKEN]          the bad-input set: no 5xx, and problem+json wherever the server
                                (not libmicrohttpd) answers
  idle URL PID N                RSS of PID before and with N idle keep-alive connections
  trickle URL N ADDRS SECONDS   N slowloris connections from ADDRS addresses held for SECONDS
                                (re-opened when cut), while a normal client measures latency
  deadline URL SECONDS          one trickling connection is cut with a 408 within SECONDS + 1
"""
import asyncio
import os
import socket
import sys
import time
from urllib.parse import urlparse


def target(url):
    parsed = urlparse(url)
    return parsed.hostname, parsed.port


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# ---------------------------------------------------------------------------------------------
# One raw request, for inputs curl would refuse to send or would fix up.

def raw(url, payload, timeout=10.0, sender=None):
    """Sends bytes (or lets `sender(sock)` send), returns (status, content_type, body)."""
    host, port = target(url)
    sock = socket.create_connection((host, port), timeout=timeout)
    try:
        if sender:
            sender(sock)
        else:
            sock.sendall(payload)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            if _ and b"content-length:" in head.lower():
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                if len(rest) >= length:
                    break
    except BrokenPipeError:
        data = b""
    finally:
        sock.close()
    if not data.startswith(b"HTTP/"):
        return 0, "", data
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    content_type = ""
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-type":
            content_type = value.strip()
    return status, content_type, body


def post(path, body, content_type="application/json", extra=b""):
    return (f"POST {path} HTTP/1.1\r\nHost: chaos\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n").encode() + extra + b"\r\n" + body


def get(path, extra=b"", token=None):
    auth = f"Authorization: Bearer {token}\r\n".encode() if token else b""
    return f"GET {path} HTTP/1.1\r\nHost: chaos\r\nConnection: close\r\n".encode() + auth + extra + b"\r\n"


def chunked_sender(path, total, chunk=65536):
    def send(sock):
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: chaos\r\nContent-Type: application/json\r\n"
                     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode())
        piece = b"%x\r\n" % chunk + b"a" * chunk + b"\r\n"
        for _ in range(total // chunk):
            sock.sendall(piece)
        sock.sendall(b"0\r\n\r\n")
    return send


def bad_inputs(token):
    deep = b"[" * 30000 + b"]" * 30000
    email = b'{"email":"' + os.urandom(4096).hex().encode() + b'@example.com","password":"wrong horse"}'
    # (name, payload or sender, who should answer: "server" = problem+json required)
    cases = [
        ("deep JSON array on /auth/login", post("/auth/login", deep), "server"),
        ("deep JSON object on /auth/register", post("/auth/register", b'{"a":' * 10000 + b"1" + b"}" * 10000), "server"),
        ("8 KB email on /auth/login", post("/auth/login", email), "server"),
        ("8 KB email on /auth/register", post("/auth/register", email.replace(b'"wrong horse"', b'"correct horse","display_name":"X"')), "server"),
        ("10 KB display name", post("/auth/register", b'{"email":"x@example.com","password":"correct horse","display_name":"' + b"x" * 10240 + b'"}'), "server"),
        ("10 KB password on /auth/login", post("/auth/login", b'{"email":"x@example.com","password":"' + b"p" * 10240 + b'"}'), "server"),
        ("\\u0000 in a JSON string", post("/auth/login", b'{"email":"a\\u0000@example.com","password":"wrong horse"}'), "server"),
        ("1e999999 as a number", post("/auth/login", b'{"email":1e999999,"password":"x"}'), "server"),
        ("invalid UTF-8 body", post("/auth/login", b'{"email":"\xff\xfe","password":"x"}'), "server"),
        ("NUL byte in the body", post("/auth/login", b'{"email":"a\x00b","password":"x"}'), "server"),
        ("not JSON at all", post("/auth/login", b"<xml/>"), "server"),
        ("a key twice, 10,000 objects deep", post("/auth/register", b'{"a":' * 10000 + b'{"b":1,"b":2}' + b"}" * 10000), "server"),
        ("6,000 keys, the last one twice", post("/auth/login", b"{" + b",".join(b'"k%d":1' % i for i in range(6000)) + b',"k5999":2}'), "server"),
        ("a body on a route that takes none", post("/me/streak-freezes", b'{"slot":3,"price":0}'), "server"),
        ("wrong Content-Type", post("/auth/login", b"{}", content_type="text/plain"), "server"),
        ("Content-Length 1 GB announced", (b"POST /auth/login HTTP/1.1\r\nHost: chaos\r\nContent-Type: application/json\r\n"
                                           b"Content-Length: 1000000000\r\nConnection: close\r\n\r\n"), "server"),
        ("10 MB chunked body", chunked_sender("/auth/login", 10 << 20), "server"),
        ("unknown method", b"BREW /health HTTP/1.1\r\nHost: chaos\r\nConnection: close\r\n\r\n", "server"),
        ("unknown path", get("/" + "x" * 2000), "server"),
        ("bad query numbers", get("/leaderboards/daily?limit=99999999999999999999", token=token), "server"),
        ("bad time range", get("/focus-sessions?from=yesterday&to=%00", token=token), "server"),
        ("bad UUID in the path", get("/users/not-a-uuid", token=token), "server"),
        ("bad bearer token", get("/me", token="x" * 4000), "server"),
        ("12 KB header", get("/health", extra=b"X-Big: " + b"a" * 12288 + b"\r\n"), "server"),
        ("64 KB header", get("/health", extra=b"X-Big: " + b"a" * 65536 + b"\r\n"), "libmicrohttpd"),
        ("1,000 headers", get("/health", extra=b"".join(b"X-H%d: v\r\n" % i for i in range(1000))), "libmicrohttpd"),
        ("64 KB URL", get("/health?" + "a" * 65536), "libmicrohttpd"),
        ("bad chunk size", (b"POST /auth/login HTTP/1.1\r\nHost: chaos\r\nContent-Type: application/json\r\n"
                            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"), "libmicrohttpd"),
        ("bad Content-Length", (b"POST /auth/login HTTP/1.1\r\nHost: chaos\r\nContent-Type: application/json\r\n"
                                b"Content-Length: abc\r\nConnection: close\r\n\r\n{}"), "libmicrohttpd"),
        ("Content-Length past 2^64", (b"POST /auth/login HTTP/1.1\r\nHost: chaos\r\nContent-Type: application/json\r\n"
                                      b"Content-Length: 99999999999999999999999\r\nConnection: close\r\n\r\n{}"), "libmicrohttpd"),
    ]
    return cases


def cmd_badinput(url, token=None):
    failed = 0
    fives = 0
    ours = theirs = 0
    for name, payload, answerer in bad_inputs(token):
        if callable(payload):
            status, content_type, body = raw(url, None, sender=payload, timeout=30)
        else:
            status, content_type, body = raw(url, payload)
        problem = content_type == "application/problem+json"
        ok = 400 <= status < 500 and (problem or answerer == "libmicrohttpd")
        fives += status >= 500 or status == 0
        ours += problem
        theirs += not problem
        if not ok:
            failed += 1
        shown = content_type or "(no Content-Type)"
        print(f"  bad input: {name:<38} {status} {shown:<26} {'ok' if ok else 'FAILED'}")
    verdict = "ok" if failed == 0 and fives == 0 else "FAILED"
    print(f"  bad-input set: {len(bad_inputs(token))} requests, {fives} answered 5xx or nothing, "
          f"{ours} problem+json, {theirs} libmicrohttpd's own HTML {verdict}")
    return failed == 0 and fives == 0


# ---------------------------------------------------------------------------------------------
# Many connections (asyncio).

async def open_from(host, port, address):
    return await asyncio.open_connection(host, port, local_addr=(address, 0))


def addresses(count):
    return [f"127.0.0.{2 + index}" for index in range(count)]


async def idle(url, pid, count):
    host, port = target(url)
    before = rss_kib(pid)
    sources = addresses((count + 49) // 50)
    connections = []

    async def one(index):
        reader, writer = await open_from(host, port, sources[index // 50])
        writer.write(b"GET /health HTTP/1.1\r\nHost: chaos\r\n\r\n")
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        connections.append(writer)
        return head.startswith(b"HTTP/1.1 200")

    results = []
    for start in range(0, count, 100):
        results += await asyncio.gather(*(one(i) for i in range(start, min(count, start + 100))),
                                        return_exceptions=True)
    await asyncio.sleep(1)
    during = rss_kib(pid)
    kept = sum(1 for r in results if r is True)
    for writer in connections:
        writer.close()
    await asyncio.sleep(1)
    ok = kept == count and during < 64 * 1024
    per = (during - before) / max(kept, 1)
    print(f"  {count} idle keep-alive connections: {kept} open, RSS {before / 1024:.1f} MB idle, "
          f"{during / 1024:.1f} MB with them ({per:.1f} KiB each) {'ok' if ok else 'FAILED'}")
    return ok


class Tally:
    def __init__(self):
        self.open = 0
        self.peak = 0
        self.refused = 0
        self.cut408 = 0
        self.samples = []


async def trickler(host, port, source, tally, stop, interval):
    """A slowloris connection: an unfinished head, one more byte every `interval` seconds.
    Counted as held once it survived its first interval; re-opened when cut (at once after a
    408, after `interval` when it was refused)."""
    while not stop.is_set():
        try:
            reader, writer = await open_from(host, port, source)
        except OSError:
            tally.refused += 1
            await asyncio.sleep(interval)
            continue
        got = b""
        held = False
        try:
            writer.write(b"GET /health HTTP/1.1\r\nHost: chaos\r\n")
            await writer.drain()
            while not stop.is_set():
                try:
                    # The first wait is short, so a connection cut by a short HEAD_TIMEOUT
                    # still counts as held once it outlived a refusal.
                    chunk = await asyncio.wait_for(reader.read(4096), timeout=interval if held else 0.5)
                except asyncio.TimeoutError:
                    if not held:
                        held = True
                        tally.open += 1
                        tally.peak = max(tally.peak, tally.open)
                    writer.write(b"X")
                    await writer.drain()
                    continue
                if not chunk:
                    break
                got += chunk
        except (ConnectionError, OSError):
            pass
        finally:
            if held:
                tally.open -= 1
            writer.close()
        if got.startswith(b"HTTP/1.1 408"):
            tally.cut408 += 1
        elif not held:
            tally.refused += 1
            await asyncio.sleep(interval)


async def normal_client(host, port, tally, stop, pause=0.05):
    """A well-behaved client: a new connection per request, GET /health, from 127.0.0.1."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5)
            writer.write(b"GET /health HTTP/1.1\r\nHost: chaos\r\nConnection: close\r\n\r\n")
            await writer.drain()
            data = await asyncio.wait_for(reader.read(), 15)
            writer.close()
            if data.startswith(b"HTTP/1.1 200"):
                tally.samples.append((time.monotonic() - started) * 1000)
            else:
                tally.refused += 1
        except (OSError, asyncio.TimeoutError):
            tally.refused += 1
        await asyncio.sleep(pause)


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def trickle(url, count, source_count, seconds, interval=2.0, max_p99_ms=None):
    host, port = target(url)
    stop = asyncio.Event()
    tally, normal = Tally(), Tally()
    sources = addresses(source_count)
    tasks = [asyncio.create_task(trickler(host, port, sources[i % source_count], tally, stop, interval))
             for i in range(count)]
    await asyncio.sleep(3)  # let them connect
    held = []
    client = asyncio.create_task(normal_client(host, port, normal, stop))
    for _ in range(int(seconds * 2)):
        await asyncio.sleep(0.5)
        held.append(tally.open)
    stop.set()
    await asyncio.gather(client, *tasks, return_exceptions=True)
    served = len(normal.samples)
    p50, p99 = percentile(normal.samples, 0.5), percentile(normal.samples, 0.99)
    ok = served > 0 and normal.refused == 0 and (max_p99_ms is None or p99 <= max_p99_ms)
    print(f"  {count} tricklers from {source_count} addresses ({seconds} s): held up to {max(held)} (median {percentile(held, 0.5)}), "
          f"{tally.refused} refused at once, {tally.cut408} cut by 408; normal client {served} served, "
          f"{normal.refused} failed, p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(normal.samples, default=0):.1f} ms {'ok' if ok else 'FAILED'}")
    return ok


async def full(url, count, source_count, seconds, interval=2.0):
    """Slowloris at CONNECTION_LIMIT: a new client is refused fast, and served once the head
    deadline frees slots."""
    host, port = target(url)
    stop = asyncio.Event()
    tally = Tally()
    sources = addresses(source_count)
    tasks = [asyncio.create_task(trickler(host, port, sources[i % source_count], tally, stop, interval))
             for i in range(count)]
    await asyncio.sleep(3)
    refusals, waits, served_after = [], [], None
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        started = time.monotonic()
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), 5)
            writer.write(b"GET /health HTTP/1.1\r\nHost: chaos\r\nConnection: close\r\n\r\n")
            await writer.drain()
            data = await asyncio.wait_for(reader.read(), 15)
            writer.close()
        except (OSError, asyncio.TimeoutError):
            data = b""
        took = (time.monotonic() - started) * 1000
        if data.startswith(b"HTTP/1.1 200"):
            waits.append(took)
            if served_after is None:
                served_after = time.monotonic() - began
        else:
            refusals.append(took)
        await asyncio.sleep(0.1)
    peak = tally.peak
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    slowest_refusal = max(refusals) if refusals else 0
    # What must hold: a new client is never left waiting while the server is full. Whether it
    # is also served depends on winning a freed slot against tricklers that reconnect at once.
    ok = slowest_refusal < 3000 and len(refusals) + len(waits) > 0
    served_text = f"first served after {served_after:.1f} s" if served_after is not None else "never served"
    print(f"  slowloris at the limit ({count} tricklers, {source_count} addresses, peak {peak} open): "
          f"a new client refused {len(refusals)}x in {percentile(refusals, 0.5):.0f} ms (p99 {percentile(refusals, 0.99):.0f} ms, slowest {slowest_refusal:.0f} ms), "
          f"{served_text}, {len(waits)} served, {tally.cut408} tricklers cut by 408 {'ok' if ok else 'FAILED'}")
    return ok


async def deadline(url, seconds):
    host, port = target(url)
    reader, writer = await asyncio.open_connection(host, port)
    started = time.monotonic()
    writer.write(b"GET /health HTTP/1.1\r\nHost: chaos\r\n")
    got = b""
    try:
        while time.monotonic() - started < seconds + 5:
            try:
                chunk = await asyncio.wait_for(reader.read(4096), timeout=0.5)
            except asyncio.TimeoutError:
                writer.write(b"X")  # a byte every half second: the idle timer never fires
                await writer.drain()
                continue
            if not chunk:
                break
            got += chunk
    except (ConnectionError, OSError):
        pass
    took = time.monotonic() - started
    status = got.split(b"\r\n")[0].decode("latin-1", "replace")
    problem = b"application/problem+json" in got
    ok = got.startswith(b"HTTP/1.1 408") and problem and took < seconds + 1.5
    print(f"  a head trickled a byte every 0.5 s: '{status}' problem+json={str(problem).lower()} "
          f"after {took:.1f} s (HEAD_TIMEOUT={seconds}) {'ok' if ok else 'FAILED'}")
    return ok


def main(argv):
    command = argv[1]
    if command == "badinput":
        ok = cmd_badinput(argv[2], argv[3] if len(argv) > 3 else None)
    elif command == "idle":
        ok = asyncio.run(idle(argv[2], int(argv[3]), int(argv[4])))
    elif command == "trickle":
        limit = float(argv[6]) if len(argv) > 6 else None
        ok = asyncio.run(trickle(argv[2], int(argv[3]), int(argv[4]), float(argv[5]), max_p99_ms=limit))
    elif command == "full":
        ok = asyncio.run(full(argv[2], int(argv[3]), int(argv[4]), float(argv[5])))
    elif command == "deadline":
        ok = asyncio.run(deadline(argv[2], float(argv[3])))
    else:
        print(__doc__)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
