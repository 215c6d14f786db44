#!/usr/bin/env python3
"""checks.py: the HTTP requests of the shell checks whose answers are JSON (scripts/lib/http.sh).

Python's standard library only (Debian's python3). Each subcommand does one request against the
real server and prints one line for the shell to read:

  request METHOD URL [TOKEN [BODY]]   "STATUS CODE RETRY_AFTER": the status ("000" when there
                                      was no answer within 10 s), the problem's "code" member
                                      (empty unless the body is a JSON object with one) and the
                                      Retry-After header (empty without one)
  account URL PREFIX                  registers a new account (PREFIX-<random>@example.com) at
                                      URL/auth/register; prints "USER_ID TOKEN", exits 1 if the
                                      server did not answer 2xx
"""
import http.client
import json
import secrets
import sys
from urllib.parse import urlsplit

TIMEOUT = 10.0


def send(method, url, token="", body=""):
    """(status, headers, body bytes) of one request; (0, None, b"") when there was no answer."""
    parts = urlsplit(url)
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if body:
        headers["Content-Type"] = "application/json"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        connection.request(method, path, body=body.encode() if body else None, headers=headers)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    except (OSError, http.client.HTTPException):
        return 0, None, b""
    finally:
        connection.close()


def json_member(raw, name):
    """The string member NAME of a JSON object body, or "" when there is none."""
    try:
        document = json.loads(raw)
    except ValueError:
        return ""
    value = document.get(name) if isinstance(document, dict) else None
    return value if isinstance(value, str) else ""


def request(method, url, token="", body=""):
    status, headers, raw = send(method, url, token, body)
    retry_after = (headers.get("Retry-After") or "") if headers is not None else ""
    print(f"{status:03d} {json_member(raw, 'code')} {retry_after.strip()}")
    return 0


def account(url, prefix):
    email = f"{prefix}-{secrets.randbelow(10**9)}@example.com"
    body = json.dumps({"email": email, "password": "correct horse", "display_name": prefix.capitalize()})
    status, _, raw = send("POST", f"{url}/auth/register", body=body)
    if not 200 <= status < 300:
        print(f"register answered {status:03d}: {raw[:200]!r}", file=sys.stderr)
        return 1
    answer = json.loads(raw)
    print(f"{answer['user']['id']} {answer['token']}")
    return 0


def main(argv):
    commands = {"request": (request, 2, 4), "account": (account, 2, 2)}
    if len(argv) < 2 or argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    command, least, most = commands[argv[1]]
    arguments = argv[2:]
    if not least <= len(arguments) <= most:
        print(__doc__, file=sys.stderr)
        return 2
    return command(*arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
