#!/usr/bin/env python3
"""bench-stats.py: the arithmetic of scripts/bench, on the files its tools wrote.

Python's standard library only (Debian's python3). Each subcommand prints one figure (or one
table) for the shell:

  latency WRK_OUT PERCENTILE          a latency of wrk --latency's distribution ("50%", "99%")
                                      in milliseconds, two decimals
  db-us BUSY_TICKS TICK_US CPU PGBENCH_OUT
                                      the database's CPU per transaction (µs): the machine's busy
                                      time during the pgbench run minus pgbench's own user and
                                      system time (CPU: bash's `time` as "USER SYS"), over the
                                      transactions pgbench processed
  per-request TICKS TICK_US N         CPU per request (µs) of TICKS clock ticks over N requests
  ceiling DB_US SERVER_US             db / (db + server), or "-" without a database figure
  ratio A B                           A / B, or "-" when B is not a positive number
  difference A B                      A - B, or "-" when either is not a number
  pace CONNECTIONS RATE               the pause (ms) before each request on one of CONNECTIONS
                                      for RATE req/s in all
  half-peak-pace CONNECTIONS PEAK     the same for half of PEAK req/s, at least 1 ms (wrk
                                      pauses in whole milliseconds)
  pgbench-latency PERCENTILE LOG...   a latency of pgbench's per-transaction logs (-l: the third
                                      field, µs; with --rate it counts from the scheduled start,
                                      as a paced wrk request counts from its send) in ms, two
                                      decimals ("50%", "99%")
  rss PID                             the resident set of PID, "N MB"
  scale-table RESULTS                 RESULTS' lines "USERS CASE P50 P99" as one table: a row
                                      per case, a column per user count, and the p99 of the
                                      largest count over the smallest's
"""
import re
import sys


def number(text):
    try:
        return float(text)
    except ValueError:
        return 0.0


def latency(path, percentile):
    units = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    with open(path) as report:
        for line in report:
            fields = line.split()
            if len(fields) >= 2 and fields[0] == percentile:
                match = re.fullmatch(r"([0-9.]+)([a-z]*)", fields[1])
                if match:
                    print(f"{float(match.group(1)) * units.get(match.group(2), 1.0):.2f}")
                return 0
    print("")
    return 0


def db_us(busy_ticks, tick_us, cpu_path, pgbench_path):
    with open(cpu_path) as cpu:
        user, system = (number(value) for value in cpu.read().split()[:2])
    transactions = 0
    with open(pgbench_path) as report:
        for line in report:
            if line.startswith("number of transactions actually processed"):
                transactions = int(line.split()[-1].split("/")[0])
    busy = number(busy_ticks) * number(tick_us) - (user + system) * 1_000_000
    print(f"{busy / transactions if transactions > 0 else 0:.0f}")
    return 0


def per_request(ticks, tick_us, requests):
    n = number(requests)
    print(f"{number(ticks) * number(tick_us) / n if n > 0 else 0:.0f}")
    return 0


def ceiling(db, server):
    d = number(db)
    print(f"{d / (d + number(server)):.2f}" if d > 0 else "-")
    return 0


def ratio(a, b):
    print(f"{number(a) / number(b):.2f}" if number(b) > 0 else "-")
    return 0


def difference(a, b):
    try:
        print(f"{float(a) - float(b):.0f}")
    except ValueError:
        print("-")
    return 0


def pace(connections, rate):
    print(int(number(connections) * 1000 / number(rate)))
    return 0


def half_peak_pace(connections, peak):
    p = number(connections) * 2000 / number(peak) if number(peak) > 0 else 1000
    print(1 if p < 1 else int(p + 0.5))
    return 0


def pgbench_latency(percentile, *logs):
    times = []
    for path in logs:
        with open(path) as log:
            times.extend(int(line.split()[2]) for line in log if len(line.split()) >= 3)
    if not times:
        print("")
        return 0
    times.sort()
    rank = min(len(times) - 1, max(0, int(len(times) * number(percentile.rstrip("%")) / 100 + 0.5) - 1))
    print(f"{times[rank] / 1000:.2f}")
    return 0


def rss(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                print(f"{int(line.split()[1]) / 1024:.6g} MB")
    return 0


def scale_table(path):
    counts, cases, p50, p99 = [], [], {}, {}
    with open(path) as results:
        for line in results:
            fields = line.split()
            if len(fields) < 4:
                continue
            users, case = fields[0], fields[1]
            if users not in counts:
                counts.append(users)
            if case not in cases:
                cases.append(case)
            p50[users, case], p99[users, case] = fields[2], fields[3]
    print(f"{'case':<22}" + "".join(f" {users + ' users':>20}" for users in counts) + "  p99 ratio")
    for case in cases:
        cells = "".join(f" {p50.get((users, case), '') + ' / ' + p99.get((users, case), ''):>20}" for users in counts)
        first, last = number(p99.get((counts[0], case), "")), number(p99.get((counts[-1], case), ""))
        print(f"{case:<22}{cells}  {last / first if first > 0 else 0:.2f}")
    return 0


COMMANDS = {
    "latency": (latency, 2),
    "db-us": (db_us, 4),
    "per-request": (per_request, 3),
    "ceiling": (ceiling, 2),
    "ratio": (ratio, 2),
    "difference": (difference, 2),
    "pace": (pace, 2),
    "half-peak-pace": (half_peak_pace, 2),
    "pgbench-latency": (pgbench_latency, None),
    "rss": (rss, 1),
    "scale-table": (scale_table, 1),
}


def main(argv):
    # None: one argument or more (a list of files).
    arity = COMMANDS[argv[1]][1] if len(argv) >= 2 and argv[1] in COMMANDS else -1
    if arity == -1 or (len(argv) - 2 != arity if arity is not None else len(argv) < 4):
        print(__doc__, file=sys.stderr)
        return 2
    return COMMANDS[argv[1]][0](*argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
