#!/usr/bin/env python3
"""address-drill.py: one prober among innocents, through the reference haproxy (scripts/test's
proxy checks). Python's standard library only; psql (as focus_owner) reads the mailed codes.

  address-drill.py BASE_URL OWNER_URL MODE

BASE_URL is haproxy's https:// address (the CA in FOCUS_CA) or a server's own http:// one.
MODE says where the 20 clients come from (each binds its own loopback source address, in a
/24 of the mode's own, so that one run's counts never meet another's):
  spread  the prober from 127.1.0.2, the 19 others from 127.1.0.3 .. 127.1.0.21;
  nat     all 20 from 127.2.0.2, a school behind one address;
  spoof   as spread, straight to a server that trusts only 127.0.0.1, with the prober sending a
          new X-Forwarded-For on every request: the header must change nothing.
The prober signs up with taken emails until an answer is not 409 email_taken, then guesses
wrong reset codes for those emails until 429. Then each of the 19 others signs up (with the
mailed code when the answer is 202), signs in, asks for a password reset and confirms it with
the mailed code, and signs in with the new password. Prints one line per figure (the shell's
check format); exits 1 if an innocent was refused or the prober was never refused.
"""
import http.client
import json
import os
import secrets
import ssl
import subprocess
import sys

TIMEOUT = 15.0
TRIES = 400


def check(label, ok):
    print(f"  {label:<92} {'ok' if ok else 'FAILED'}", flush=True)
    return ok


class Client:
    """One client at its own source address; `forwarded` makes up an X-Forwarded-For each time."""

    def __init__(self, base, source, forwarded=False):
        self.scheme, rest = base.split("://", 1)
        self.host, port = rest.rsplit(":", 1)
        self.port = int(port)
        self.source = source
        self.forwarded = forwarded
        self.context = None
        if self.scheme == "https":
            self.context = ssl.create_default_context(cafile=os.environ["FOCUS_CA"])

    def send(self, method, path, body=None, token=""):
        """(status, document) of one request on a connection of its own."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if self.forwarded:
            headers["X-Forwarded-For"] = f"198.51.100.{secrets.randbelow(250) + 1}"
        if self.context:
            connection = http.client.HTTPSConnection(self.host, self.port, timeout=TIMEOUT,
                                                     source_address=(self.source, 0), context=self.context)
        else:
            connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT,
                                                    source_address=(self.source, 0))
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = connection.getresponse()
            raw = response.read()
            return response.status, (json.loads(raw) if raw else None)
        finally:
            connection.close()


def psql(url, sql, *values):
    """One statement's answer; VALUES are bound as psql variables :v1, :v2, ..."""
    arguments = ["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", url]
    for number, value in enumerate(values, 1):
        arguments += ["-v", f"v{number}={value}"]
    done = subprocess.run(arguments, input=sql, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"psql failed: {done.stderr.strip()[:300]}")
    return done.stdout.strip()


def signup_code(owner_url, email):
    """The code of the newest sign-up code mail to EMAIL."""
    return psql(owner_url, "select params ->> 'code' from app.outgoing_mail "
                "where recipient = :'v1' and kind = 'signup_code' order by id desc limit 1", email)


def reset_code(owner_url, email):
    """The code of the newest reset mail to EMAIL, after the mailer's step queued it."""
    return psql(owner_url, "select app.send_password_resets(); "
                "select substring(body from 'Your code is (\\d{8})') from app.outgoing_mail "
                "where recipient = :'v1' and subject ~ 'password reset' order by id desc limit 1",
                email).splitlines()[-1]


def taken_emails(client, count):
    """COUNT accounts made from CLIENT's address before the drill: the emails the prober tests."""
    emails = []
    for _ in range(count):
        email = f"taken-{secrets.token_hex(6)}@example.com"
        status, _ = client.send("POST", "/auth/register", {"email": email, "password": "correct horse",
                                                           "display_name": "Taken"})
        if status != 201:
            raise SystemExit(f"making a taken email answered {status}")
        emails.append(email)
    return emails


def probe(prober, emails):
    """Sign-ups with taken emails until an answer is not 409, then wrong reset codes until 429:
    (sign-ups answered 409, the answer that ended them, wrong codes answered 400, the last code)."""
    taken = 0
    ended = None
    for attempt in range(TRIES):
        status, document = prober.send("POST", "/auth/register", {
            "email": emails[attempt % len(emails)], "password": "correct horse", "display_name": "Prober"})
        if status != 409:
            ended = status
            break
        taken += 1
    wrong = 0
    last = None
    for attempt in range(TRIES):
        status, document = prober.send("POST", "/auth/password-reset/confirm", {
            "email": emails[attempt % len(emails)], "code": f"{secrets.randbelow(10**8):08d}",
            "new_password": "another horse"})
        last = (status, (document or {}).get("code"))
        if status == 429:
            break
        wrong += 1
    return taken, ended, wrong, last


def innocent(client, owner_url, number):
    """Sign-up (with the mailed code after a 202), sign-in, reset, sign-in: the steps that failed."""
    email = f"innocent-{number}-{secrets.token_hex(4)}@example.com"
    fields = {"email": email, "password": "correct horse", "display_name": f"Innocent {number}"}
    failed = []
    status, document = client.send("POST", "/auth/register", fields)
    stepped_up = status == 202
    if stepped_up:
        status, document = client.send("POST", "/auth/register", fields | {"code": signup_code(owner_url, email)})
    if status != 201:
        failed.append(f"sign-up {status}")
    status, _ = client.send("POST", "/auth/login", {"email": email, "password": "correct horse"})
    if status != 200:
        failed.append(f"sign-in {status}")
    status, _ = client.send("POST", "/auth/password-reset", {"email": email})
    if status != 202:
        failed.append(f"reset request {status}")
    status, _ = client.send("POST", "/auth/password-reset/confirm", {
        "email": email, "code": reset_code(owner_url, email), "new_password": "another horse"})
    if status != 200:
        failed.append(f"reset {status}")
    status, _ = client.send("POST", "/auth/login", {"email": email, "password": "another horse"})
    if status != 200:
        failed.append(f"sign-in after the reset {status}")
    return stepped_up, failed


def main(argv):
    if len(argv) != 4 or argv[3] not in ("spread", "nat", "spoof"):
        print(__doc__, file=sys.stderr)
        return 2
    base, owner_url, mode = argv[1:]
    net = {"spread": "127.1.0", "nat": "127.2.0", "spoof": "127.3.0"}[mode]
    prober = Client(base, f"{net}.2", forwarded=mode == "spoof")
    others = [Client(base, f"{net}.2" if mode == "nat" else f"{net}.{3 + n}") for n in range(19)]
    # The taken emails come from an address of their own, so making them counts against nobody.
    emails = taken_emails(Client(base, f"{net}.99"), 5)
    taken, ended, wrong, last = probe(prober, emails)
    ok = check(f"{mode}: the prober got {taken} email_taken answers, then {ended}", ended in (202, 429))
    ok &= check(f"{mode}: the prober guessed {wrong} wrong reset codes, then {last[0]} {last[1]}", last[0] == 429)
    stepped, refused = 0, []
    for number, client in enumerate(others):
        stepped_up, failed = innocent(client, owner_url, number)
        stepped += stepped_up
        refused += failed
    ok &= check(f"{mode}: 19 others signed up ({stepped} with a mailed code), signed in, reset and signed in again; "
                f"refused: {len(refused)} {sorted(set(refused))[:3]}", not refused)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
