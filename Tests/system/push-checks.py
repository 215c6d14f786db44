#!/usr/bin/env python3
"""push-checks.py: `focus-island push` against local peers that speak the real protocols.

Run by Tests/system/push-checks.sh (scripts/test) with the venv's Python (hypercorn, h2,
cryptography):

  push-checks.py SERVER_BINARY BASE_URL API_DATABASE_URL OWNER_DATABASE_URL WORKDIR

WORKDIR receives a test CA and a certificate for 127.0.0.1 signed by it (the sender trusts the
CA through PUSH_CA_FILE), an APNs .p8 key (P-256) and an FCM service account JSON (RSA 2048),
and peer.log: one JSON line per request the peer answered. The peer is one HTTP/2 TLS server
(hypercorn + h2) playing three parts:

  POST /3/device/{token}                  APNs: checks HTTP/2, the ES256 provider token's
                                          signature against the test key (kid, iss, iat), the
                                          apns-topic and apns-push-type headers and the payload
                                          (loc-key, loc-args, no "@"); answers by the token's
                                          first digits: dead… 410 Unregistered, 0429… 429 with
                                          Retry-After: 1, anything else 200
  POST /token                             OAuth2: checks the RS256 assertion (iss, scope, aud)
                                          and answers an access token
  POST /v1/projects/{id}/messages:send    FCM: checks the access token and the message;
                                          dead… 404 UNREGISTERED, anything else 200

The checks (the figures are printed):
  1. Bo asks Ada (two APNs tokens, one FCM token): exactly one push per token, none holding an
     address; the APNs log line with its verified JWT is printed.
  2. A 410 (APNs) and an UNREGISTERED (FCM) delete the token; a 429 keeps the row with one
     attempt counted and send_after moved by Retry-After.
  3. Two senders running at once over 200 rows: each row sent exactly once (the peer's count per
     outbox id), and the two senders' /metrics add up to 200.
  4. A reminder (docs/push.md, "Reminders"): Eve, whose time zone makes it 19:xx for her now,
     recorded a session yesterday (her day) over HTTP; the reminders job (api.jobs_run) queues
     her streak reminder and the sender delivers one push (push.reminder.streak_at_risk, no
     argument, the reminder's id); the job run again sends nothing more.
"""
import asyncio
import base64
import datetime
import ipaddress
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
import uuid

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID
from hypercorn.asyncio import serve
from hypercorn.config import Config

TEAM_ID, KEY_ID, TOPIC, PROJECT = "TEAM123456", "KEY1234567", "app.focusisland.ios", "focus-island-test"


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def make_material(workdir):
    """A CA, a server certificate for 127.0.0.1 signed by it, the APNs key and the FCM account."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push checks CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = {name: os.path.join(workdir, name) for name in ("ca.pem", "cert.pem", "key.pem", "apns.p8", "fcm.json")}
    with open(paths["ca.pem"], "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths["cert.pem"], "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths["key.pem"], "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    apns_key = ec.generate_private_key(ec.SECP256R1())
    with open(paths["apns.p8"], "wb") as f:
        f.write(apns_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    fcm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return paths, apns_key.public_key(), fcm_key


class Peer:
    """APNs, OAuth2 and FCM on one HTTP/2 TLS listener; every answer logged as one JSON line."""

    def __init__(self, apns_public, fcm_public, log_path):
        self.apns_public, self.fcm_public = apns_public, fcm_public
        self.log_path, self.lock = log_path, threading.Lock()
        self.access_tokens = set()
        self.token_uri = ""

    def log(self, entry):
        with self.lock, open(self.log_path, "a") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")

    def verify_jwt(self, token, public_key, algorithm):
        """The JWT's header and claims if its signature verifies with public_key, else None."""
        try:
            header_b64, claims_b64, signature_b64 = token.split(".")
            header, claims = json.loads(b64url_decode(header_b64)), json.loads(b64url_decode(claims_b64))
            signature, signed = b64url_decode(signature_b64), f"{header_b64}.{claims_b64}".encode()
            if header.get("alg") != algorithm:
                return None
            if algorithm == "ES256":
                if len(signature) != 64:
                    return None
                der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
                public_key.verify(der, signed, ec.ECDSA(hashes.SHA256()))
            else:
                public_key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
            return header, claims
        except (ValueError, InvalidSignature):
            return None

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                event = (await receive())["type"]
                await send({"type": event + ".complete"})
                if event == "lifespan.shutdown":
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        status, answer, extra = self.answer(scope["path"], scope["http_version"], headers, body)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json")] + [(k.encode(), v.encode()) for k, v in extra]})
        await send({"type": "http.response.body", "body": json.dumps(answer).encode()})

    def answer(self, path, http_version, headers, body):
        entry = {"path": path, "http_version": http_version, "has_at_sign": b"@" in body}
        try:
            if path.startswith("/3/device/"):
                return self.apns(path[len("/3/device/"):], headers, body, entry)
            if path == "/token":
                return self.oauth(body, entry)
            if re.fullmatch(r"/v1/projects/[^/]+/messages:send", path):
                return self.fcm(headers, body, entry)
            entry["status"] = 404
            return 404, {}, []
        finally:
            self.log(entry)

    def apns(self, token, headers, body, entry):
        entry.update(service="apns", token=token)
        bearer = headers.get("authorization", "")
        verified = self.verify_jwt(bearer[len("bearer "):], self.apns_public, "ES256") if bearer.startswith("bearer ") else None
        payload = json.loads(body or b"{}")
        alert = payload.get("aps", {}).get("alert", {})
        entry.update(loc_key=alert.get("loc-key"), loc_args=alert.get("loc-args"), focus=payload.get("focus"),
                     topic=headers.get("apns-topic"), push_type=headers.get("apns-push-type"))
        if verified:
            header, claims = verified
            entry["jwt"] = {"verified": True, "alg": header["alg"], "kid": header.get("kid"), "iss": claims.get("iss"),
                            "iat": claims.get("iat")}
        if (not verified or verified[0].get("kid") != KEY_ID or verified[1].get("iss") != TEAM_ID
                or abs(time.time() - verified[1].get("iat", 0)) > 3600):
            entry["status"] = 403
            return 403, {"reason": "InvalidProviderToken"}, []
        if entry["http_version"] != "2" or headers.get("apns-topic") != TOPIC or headers.get("apns-push-type") != "alert" \
                or not alert.get("loc-key") or entry["has_at_sign"]:
            entry["status"] = 400
            return 400, {"reason": "BadRequest"}, []
        if token.startswith("dead"):
            entry["status"] = 410
            return 410, {"reason": "Unregistered", "timestamp": int(time.time() * 1000)}, []
        if token.startswith("0429"):
            entry["status"] = 429
            return 429, {"reason": "TooManyRequests"}, [("retry-after", "1")]
        entry["status"] = 200
        return 200, {}, [("apns-id", str(secrets.token_hex(16)))]

    def oauth(self, body, entry):
        form = urllib.parse.parse_qs(body.decode())
        verified = self.verify_jwt(form.get("assertion", [""])[0], self.fcm_public, "RS256")
        entry.update(service="oauth", grant_type=form.get("grant_type", [""])[0])
        ok = (verified and form.get("grant_type") == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
              and verified[1].get("scope") == "https://www.googleapis.com/auth/firebase.messaging"
              and verified[1].get("aud") == self.token_uri and verified[1].get("iss", "").endswith("gserviceaccount.com"))
        entry["jwt"] = {"verified": bool(verified), "alg": "RS256"} if verified else {"verified": False}
        if not ok:
            entry["status"] = 400
            return 400, {"error": "invalid_grant"}, []
        access = "ya29.test-" + secrets.token_hex(8)
        self.access_tokens.add(access)
        entry["status"] = 200
        return 200, {"access_token": access, "expires_in": 3599, "token_type": "Bearer"}, []

    def fcm(self, headers, body, entry):
        message = json.loads(body or b"{}").get("message", {})
        token = message.get("token", "")
        notification = message.get("android", {}).get("notification", {})
        entry.update(service="fcm", token=token, loc_key=notification.get("body_loc_key"),
                     loc_args=notification.get("body_loc_args"), focus=message.get("data"))
        if headers.get("authorization", "")[len("Bearer "):] not in self.access_tokens:
            entry["status"] = 401
            return 401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}}, []
        if not notification.get("body_loc_key") or entry["has_at_sign"]:
            entry["status"] = 400
            return 400, {"error": {"code": 400, "status": "INVALID_ARGUMENT"}}, []
        if token.startswith("dead"):
            entry["status"] = 404
            return 404, {"error": {"code": 404, "status": "NOT_FOUND", "details": [
                {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}, []
        entry["status"] = 200
        return 200, {"name": f"projects/{PROJECT}/messages/{secrets.token_hex(8)}"}, []


def start_peer(peer, paths):
    """Serves the peer on 127.0.0.1 (a port the kernel chose) in a thread; returns its port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    peer.socket = sock  # held: a collected socket object would close the descriptor hypercorn serves
    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.certfile, config.keyfile = paths["cert.pem"], paths["key.pem"]
    config.alpn_protocols = ["h2", "http/1.1"]
    config.loglevel = "WARNING"
    config.accesslog = None
    # A shutdown trigger that never fires keeps hypercorn from installing signal handlers, which
    # only the main thread may; the thread ends with the process.
    never = lambda: asyncio.get_running_loop().create_future()
    threading.Thread(target=lambda: asyncio.run(serve(peer, config, shutdown_trigger=never)), daemon=True).start()
    return sock.getsockname()[1]


class Checks:
    def __init__(self, server, base_url, api_url, owner_url, workdir):
        self.server, self.base_url, self.api_url, self.owner_url, self.workdir = server, base_url, api_url, owner_url, workdir
        self.failed = 0

    def check(self, ok, text):
        print(f"  {'ok' if ok else 'FAILED'}  {text}")
        self.failed += 0 if ok else 1

    def sql(self, statement):
        return subprocess.run(["psql", "-X", "-q", "-At", self.owner_url, "-c", statement], check=True,
                              capture_output=True, text=True).stdout.strip()

    def http(self, method, path, token=None, body=None):
        request = urllib.request.Request(self.base_url + path, method=method,
                                         data=json.dumps(body).encode() if body is not None else None)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if body is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def account(self, name):
        """A verified account (the code read from app.outgoing_mail); returns (id, email, token)."""
        email = f"push-{name.lower()}-{secrets.token_hex(4)}@example.com"
        status, answer = self.http("POST", "/auth/register",
                                   body={"email": email, "password": "correct horse", "display_name": name})
        assert status == 201, (status, answer)
        code = self.sql(f"select substring(body from 'Your code is (\\d{{8}})') from app.outgoing_mail "
                        f"where recipient = '{email}' order by id desc limit 1")
        status, _ = self.http("POST", "/me/email/verify", answer["token"], {"code": code})
        assert status == 200, status
        return answer["user"]["id"], email, answer["token"]

    def sign_in(self, email):
        status, answer = self.http("POST", "/auth/login", body={"email": email, "password": "correct horse"})
        assert status == 200, status
        return answer["token"]

    def register_push(self, token, push_token, platform, environment="sandbox"):
        status, answer = self.http("PUT", "/me/push-tokens", token,
                                   {"token": push_token, "platform": platform, "environment": environment,
                                    "app_version": "2.1.0", "locale": "en"})
        assert status == 200, (status, answer)

    def sender_env(self, port, paths, metrics=False):
        env = dict(os.environ, DATABASE_URL=self.api_url, LOG_FORMAT="json", PUSH_CA_FILE=paths["ca.pem"],
                   APNS_KEY_FILE=paths["apns.p8"], APNS_KEY_ID=KEY_ID, APNS_TEAM_ID=TEAM_ID, APNS_TOPIC=TOPIC,
                   APNS_URL=f"https://127.0.0.1:{port}", APNS_SANDBOX_URL=f"https://127.0.0.1:{port}",
                   FCM_SERVICE_ACCOUNT_FILE=paths["fcm.json"], FCM_URL=f"https://127.0.0.1:{port}",
                   PUSH_POLL_INTERVAL="0.2", PUSH_BATCH="10")
        if metrics:
            env.update(PUSH_METRICS_PORT="0")
        return env

    def send_once(self, env):
        result = subprocess.run([self.server, "push", "--once"], env=env, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            print(result.stdout[-2000:], result.stderr[-2000:], file=sys.stderr)
        return result.returncode


def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv):
    if len(argv) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    checks = Checks(*argv[1:])
    paths, apns_public, fcm_key = make_material(checks.workdir)
    log_path = os.path.join(checks.workdir, "peer.log")
    peer = Peer(apns_public, fcm_key.public_key(), log_path)
    port = start_peer(peer, paths)
    peer.token_uri = f"https://127.0.0.1:{port}/token"
    with open(paths["fcm.json"], "w") as f:
        json.dump({"type": "service_account", "project_id": PROJECT, "private_key_id": "test",
                   "private_key": fcm_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                        serialization.NoEncryption()).decode(),
                   "client_email": f"push@{PROJECT}.iam.gserviceaccount.com", "token_uri": peer.token_uri}, f)
    env = checks.sender_env(port, paths)
    hexes = lambda prefix: prefix + secrets.token_hex(32)[len(prefix):]

    # 1. Bo asks Ada: one push for each of Ada's tokens, no address in any.
    checks.sql("delete from app.push_outbox")
    ada_id, ada_email, ada_phone = checks.account("Ada")
    ada_ipad, ada_android = checks.sign_in(ada_email), checks.sign_in(ada_email)
    bo_id, bo_email, bo = checks.account("Bo")
    ada_tokens = {hexes("a1"): ("apns", "sandbox"), hexes("a2"): ("apns", "production"),
                  "fcm-ada-" + secrets.token_hex(20): ("fcm", "production")}
    for (push_token, (platform, environment)), token in zip(ada_tokens.items(), [ada_phone, ada_ipad, ada_android]):
        checks.register_push(token, push_token, platform, environment)
    status, asked = checks.http("POST", "/friend-requests", bo, {"email": ada_email})
    checks.check(status == 201, f"Bo asks Ada: {status}")
    started = time.monotonic()
    checks.check(checks.send_once(env) == 0, "focus-island push --once ran")
    sends = [e for e in read_log(log_path) if e.get("token") in ada_tokens]
    per_token = {t: sum(1 for e in sends if e["token"] == t and e["status"] == 200) for t in ada_tokens}
    checks.check(sorted(per_token.values()) == [1, 1, 1] and len(sends) == 3,
                 f"exactly one push for each of Ada's 3 tokens (2 APNs, 1 FCM): {sorted(per_token.values())}, "
                 f"{len(sends)} requests in {time.monotonic() - started:.2f} s")
    checks.check(not any(e["has_at_sign"] for e in sends)
                 and not any(ada_email in json.dumps(e) or bo_email in json.dumps(e) for e in sends),
                 "no address in any of them")
    checks.check(all(e.get("loc_key") == "push.friend_request.received" and e.get("loc_args") == ["Bo"] for e in sends),
                 "each carries push.friend_request.received with Bo's display name as its argument")
    checks.check(all((e.get("focus") or {}).get("request_id") == asked["request"]["id"] for e in sends),
                 "... and the request's id")
    apns_line = next((e for e in sends if e.get("service") == "apns"), {})
    print("  the APNs peer's log line: " + json.dumps(apns_line, sort_keys=True))
    checks.check((apns_line.get("jwt") or {}).get("verified") is True and apns_line.get("http_version") == "2"
                 and apns_line.get("topic") == TOPIC and apns_line.get("push_type") == "alert",
                 "the APNs peer verified the ES256 JWT (kid, iss) over HTTP/2 with apns-topic and apns-push-type")
    oauth = [e for e in read_log(log_path) if e.get("service") == "oauth"]
    checks.check(len(oauth) == 1 and oauth[0]["jwt"]["verified"], "FCM's OAuth2 assertion (RS256) verified once")
    checks.check(checks.sql("select count(*) from app.push_outbox") == "0", "the outbox is empty after")

    # 2. Dead tokens go; a 429 is retried later.
    dee_id, dee_email, dee = checks.account("Dee")
    dead_apns, dead_fcm, busy = hexes("dead"), "dead-fcm-" + secrets.token_hex(20), hexes("0429")
    checks.register_push(dee, dead_apns, "apns")
    checks.register_push(dee, dead_fcm, "fcm")
    checks.register_push(checks.sign_in(dee_email), busy, "apns")
    checks.http("POST", "/friend-requests", bo, {"email": dee_email})
    checks.check(checks.send_once(env) == 0, "focus-island push --once ran")
    statuses = {e["token"]: e["status"] for e in read_log(log_path) if e.get("token") in (dead_apns, dead_fcm, busy)}
    left = checks.sql(f"select string_agg(token, ' ' order by token) from app.push_tokens where user_id = '{dee_id}'")
    checks.check(statuses.get(dead_apns) == 410 and dead_apns not in left, "APNs 410 Unregistered: the token is deleted")
    checks.check(statuses.get(dead_fcm) == 404 and dead_fcm not in left, "FCM UNREGISTERED: the token is deleted")
    retry = checks.sql(f"select attempts || ' ' || (send_after >= now() + interval '900 milliseconds') || ' ' || last_error "
                       f"from app.push_outbox where token = '{busy}'")
    checks.check(statuses.get(busy) == 429 and retry == "1 true 429 TooManyRequests",
                 f"429 with Retry-After: 1: kept, one attempt counted, sent again no sooner than a second later ({retry})")
    checks.sql("delete from app.push_outbox")

    # 3. Two senders at once over 200 rows: each sent once, and counted in their /metrics.
    rows = 200
    senders = [subprocess.Popen([checks.server, "push"], env=checks.sender_env(port, paths, metrics=True),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    metrics_ports = []
    for sender in senders:
        for line in sender.stdout:
            found = re.search(r"push metrics on [^ ]*:(\d+)/metrics", line)
            if found:
                metrics_ports.append(int(found.group(1)))
                break
    first_token = next(iter(ada_tokens))
    before = len(read_log(log_path))
    checks.sql(f"insert into app.push_outbox (token, event_id, type, data) "
               f"select '{first_token}', -n, 'friend_request.received', "
               f"jsonb_build_object('request_id', gen_random_uuid(), 'user_id', '{bo_id}') from generate_series(1, {rows}) n")
    deadline = time.monotonic() + 60
    while checks.sql("select count(*) from app.push_outbox") != "0" and time.monotonic() < deadline:
        time.sleep(0.2)
    scraped = []
    for metrics_port in metrics_ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as response:
            text = response.read().decode()
        scraped.append(sum(int(v) for v in re.findall(r'focus_push_sends_total\{platform="apns",outcome="sent"\} (\d+)', text)))
    for sender in senders:
        sender.send_signal(signal.SIGTERM)
        sender.wait(timeout=20)
    sent = [e for e in read_log(log_path)[before:] if e.get("token") == first_token and e["status"] == 200]
    events = [e["focus"]["event_id"] for e in sent]
    checks.check(len(sent) == rows and len(set(events)) == rows,
                 f"two senders at once: {len(sent)} pushes for {rows} rows, {len(set(events))} distinct (each row once)")
    checks.check(sum(scraped) == rows and len(scraped) == 2,
                 f"their /metrics count {' + '.join(map(str, scraped))} = {sum(scraped)} sends")

    # 4. A streak at risk at Eve's 19:00: one reminder, from the job, through the sender.
    eve_id, eve_email, eve = checks.account("Eve")
    eve_token = hexes("e7")
    checks.register_push(eve, eve_token, "apns")
    offset = (19 - datetime.datetime.now(datetime.timezone.utc).hour) % 24
    offset = offset - 24 if offset > 14 else offset
    zone = "Etc/GMT" if offset == 0 else (f"Etc/GMT-{offset}" if offset > 0 else f"Etc/GMT+{-offset}")
    status, _ = checks.http("PATCH", "/me", eve, {"settings": {"time_zone": zone}})
    checks.check(status == 200, f"Eve's time zone is {zone}, where it is 19:xx now: {status}")
    checks.sql(f"update app.users set created_at = now() - interval '3 days' where id = '{eve_id}'")
    noon = checks.sql(f"select to_char((((now() at time zone '{zone}')::date - 1) + time '12:00') at time zone '{zone}' "
                      f"at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
    started_at = checks.sql(f"select to_char(('{noon}'::timestamptz - interval '25 minutes') at time zone 'UTC', "
                            f"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
    status, _ = checks.http("POST", "/focus-sessions", eve, {"id": str(uuid.uuid4()), "started_at": started_at,
                                                             "ended_at": noon, "planned_minutes": 25})
    checks.check(status == 201, f"Eve recorded a session yesterday at her noon ({noon}): {status}")
    checks.sql("update app.scheduled_jobs set next_run_at = now() where name = 'reminders'")
    checks.sql("select api.jobs_run()")
    queued = checks.sql(f"select count(*) from app.push_outbox where token = '{eve_token}' and reminder_id is not null")
    checks.check(queued == "1", f"the reminders job queued one push for Eve's token ({queued})")
    before = len(read_log(log_path))
    checks.check(checks.send_once(env) == 0, "focus-island push --once ran")
    reminded = [e for e in read_log(log_path)[before:] if e.get("token") == eve_token]
    checks.check(len(reminded) == 1 and reminded[0]["status"] == 200
                 and reminded[0].get("loc_key") == "push.reminder.streak_at_risk" and reminded[0].get("loc_args") in ([], None)
                 and (reminded[0].get("focus") or {}).get("type") == "reminder.streak_at_risk"
                 and (reminded[0].get("focus") or {}).get("reminder_id"),
                 "the APNs peer got one push.reminder.streak_at_risk for Eve, with the reminder's id: "
                 + json.dumps(reminded[0] if reminded else None, sort_keys=True))
    checks.sql(f"insert into app.reminder_schedule (user_id, type, due_at, last_day) "
               f"values ('{eve_id}', 'reminder.streak_at_risk', now(), (now() at time zone '{zone}')::date - 1) "
               f"on conflict (user_id, type) do update set due_at = now()")
    checks.sql("update app.scheduled_jobs set next_run_at = now() where name = 'reminders'")
    checks.sql("select api.jobs_run()")
    before = len(read_log(log_path))
    checks.check(checks.send_once(env) == 0, "focus-island push --once ran")
    again = [e for e in read_log(log_path)[before:] if e.get("token") == eve_token]
    checks.check(again == [], f"the job run again the same day: nothing more for Eve ({len(again)} pushes)")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
