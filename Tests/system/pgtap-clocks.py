#!/usr/bin/env python3
"""Which pgTAP files run at every clock of scripts/test, and which once (docs/testing.md).

A file under sql/tests/ runs at the real clock and at each edge clock (the end of a Sunday, a
Monday just begun, mid-afternoon) unless its header marks it

    -- clock: any

a claim that nothing it asserts depends on the day, the week or the time of day. The claim is
checked; a marked file is refused (and this exits 1 naming why) when, comments left out:
  - its own text reads or builds a time: now(), current_date, intervals, timestamps, days,
    hours, test.day_start()/week_start() and the like;
  - it calls a function (api., app., test.) whose body does, directly or through the functions
    it calls or the triggers on the tables it writes (sql/migrations, sql/app, sql/api and
    sql/tests/setup/helpers.sql are read; a function found nowhere counts as reading a time);
  - it reads schema report (its views count by days and weeks).
So the marker fits files about grants, names, languages, assets, validation; a file with no
marker runs at every clock, the safe default for a new one.

  pgtap-clocks.py check          the marked files are all allowed (else the reasons, exit 1)
  pgtap-clocks.py once           the marked files' paths, one a line (checked first)
  pgtap-clocks.py every          the other files' paths, one a line
  pgtap-clocks.py explain FILE   why FILE could or could not carry the marker
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SQL = ROOT / "sql"
MARKER = re.compile(r"^-- clock: any\s*$", re.M)

# A time read or built in a test file's own text.
TEST_TIME = re.compile(
    r"now\s*\(|current_date|current_time|localtime|clock_timestamp|statement_timestamp|transaction_timestamp"
    r"|timeofday|interval|timestamp|\bdate\b|::time|date_trunc|date_part|extract\s*\(|to_char|age\s*\("
    r"|day_start|week_start|\b(?:to|yester)day\b|tomorrow|\b(?:second|minute|hour|day|week|month|year)s?\b"
    r"|faketime|_at\b|day|week|rollup|quiet|send_after", re.I)
# Where a function's answer depends on where "now" falls in the calendar: days, weeks, local
# dates, the hour, or a clock that moves within the file's one transaction. Relative windows
# (expires_at > now(), now() - interval '15 minutes') answer the same at any clock, since each
# file is one transaction whose now() is one instant, so they do not count.
BODY_TIME = re.compile(
    r"current_date|localtime|clock_timestamp|statement_timestamp|timeofday|date_trunc|date_part"
    r"|extract\s*\(\s*(?!epoch\b)|::date\b|::time\b|\bdate\s*\(|at\s+time\s+zone|to_char|to_date|to_timestamp"
    r"|make_date|make_timestamp|isodow|\bdow\b|isoyear|day_start|week_start|local_day|local_date", re.I)
NOW = re.compile(r"now\s*\(|current_date|current_time|localtime|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday", re.I)
TABLE = re.compile(r"create\s+(?:unlogged\s+)?(?:table|view|materialized\s+view)\s+(?:if\s+not\s+exists\s+)?((?:app|api|report|test)\.\w+)", re.I)
FUNCTION = re.compile(r"create\s+(?:or\s+replace\s+)?(?:function|procedure)\s+((?:app|api|test|report)\.\w+)\s*\(", re.I)
CALL = re.compile(r"\b((?:app|api|test)\.\w+)\s*\(", re.I)
# Functions that touch a time without reading the calendar of "now": api.iso formats a
# timestamp, api.push_settings_json and api.quiet_time format and parse a stored time of day.
# api.record_sign_in files the sign-in under its UTC day in the product rollups (sql/report),
# which no route answers from: the report's own pgTAP files are the ones that read it, unmarked.
NEUTRAL = {"api.iso", "api.push_settings_json", "api.quiet_time", "api.record_sign_in"}


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def sources() -> list[pathlib.Path]:
    return (sorted((SQL / "migrations").glob("*.sql")) + sorted((SQL / "app").glob("*.sql"))
            + sorted((SQL / "api").glob("*.sql")) + [SQL / "tests" / "setup" / "helpers.sql"])


def timed_functions() -> tuple[dict[str, str], set[str]]:
    """The functions reading the calendar ({name: why}, through the functions they call), and
    every function and table known."""
    bodies: dict[str, str] = {}
    tables: set[str] = set()
    for path in sources():
        text = strip_comments(path.read_text())
        starts = [(m.start(), m.group(1).lower()) for m in FUNCTION.finditer(text)]
        for i, (start, name) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
            bodies[name] = text[start:end]  # the last definition wins, as migrate leaves it
        tables.update(t.lower() for t in TABLE.findall(text))
    # Calendar arithmetic counts where it meets "now": in a function that reads the clock itself
    # and does calendar arithmetic or calls a function that does (api.local_date(user, now())),
    # and in whatever calls such a function. Formatting or parsing a stored time (api.iso,
    # api.push_settings_json) answers the same at any clock.
    def own(pattern: re.Pattern[str]) -> set[str]:
        return {n for n, b in bodies.items() if n not in NEUTRAL and pattern.search(b.split("(", 1)[1])}

    called = {n: {c for c in map(str.lower, CALL.findall(b)) if c != n and c not in tables} for n, b in bodies.items()}

    def calls(name: str) -> set[str]:
        return called[name]

    def closure(found: set[str]) -> set[str]:
        changed = True
        while changed:
            changed = False
            for name in bodies:
                if name not in found and name not in NEUTRAL and any(c in found or c not in bodies for c in calls(name)):
                    found.add(name)
                    changed = True
        return found
    own_calendar = own(BODY_TIME)
    calendar = closure(set(own_calendar))
    timed = {n: "reads the calendar of the clock" for n in own(NOW) if n in own_calendar or calls(n) & calendar}
    # Name each caller after a callee already named, nearest first (the closure's order).
    pending = closure(set(timed)) - set(timed)
    while pending:
        for name in sorted(pending):
            if found := sorted(c for c in calls(name) if c in timed or c not in bodies):
                timed[name] = "calls " + found[0]
                pending.discard(name)
    # A table named like a call (insert into app.t (columns)) is no call: known, never timed.
    return timed, set(bodies) | tables


def reasons(path: pathlib.Path, timed: dict[str, str], known: set[str]) -> list[str]:
    text = strip_comments(path.read_text())
    found = []
    if (m := TEST_TIME.search(text)):
        found.append(f"its text reads or builds a time ({m.group(0)!r})")
    if re.search(r"\breport\.", text, re.I):
        found.append("it reads schema report")
    for call in sorted(set(map(str.lower, CALL.findall(text)))):
        if call not in known:
            found.append(f"it calls {call}, defined nowhere under sql/")
        elif call in timed:
            found.append(f"it calls {call}, which {timed[call]}")
    return found


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    files = sorted((SQL / "tests").glob("*.sql"))
    marked = [f for f in files if MARKER.search(f.read_text())]
    timed, known = timed_functions()
    if command == "explain":
        path = pathlib.Path(sys.argv[2]).resolve()
        found = reasons(path, timed, known)
        print("\n".join(found) if found else f"{path.name} may carry '-- clock: any'")
        return
    wrong = [(f, r) for f in marked if (r := reasons(f, timed, known))]
    if wrong:
        for f, found in wrong:
            print(f"{f.relative_to(ROOT)} is marked '-- clock: any' but " + "; ".join(found[:3]), file=sys.stderr)
        sys.exit(1)
    if command == "once":
        print("\n".join(map(str, marked)))
    elif command == "every":
        print("\n".join(str(f) for f in files if f not in marked))
    elif command != "check":
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
