#!/usr/bin/env python3
"""social-peer.py: a local HTTPS server playing Apple's and Google's sign-in endpoints.

Started by Tests/FocusIslandTests/SocialSignInHTTPTests.swift with the venv's Python
(cryptography, from scripts/setup):

  social-peer.py WORKDIR

WORKDIR receives a test CA and a certificate for 127.0.0.1 signed by it (the server trusts the
CA through SOCIAL_CA_FILE), three RSA 2048 keys as PEM (rsa-apple.pem, kid "apple-1";
rsa-google.pem, kid "google-1", both published; rsa-rotated.pem, kid "rotated-1", published only
after POST /control/rotate), a Sign in with Apple key (apple-signin.p8, P-256), and peer.json
({"port": N}) once it listens. The test signs its ID tokens with these keys itself. Routes:

  GET  /apple/keys, /google/keys  the JWK sets (counted: GET /control/log's key_fetches)
  POST /apple/token               the code exchange: checks the form and the client secret (an
                                  ES256 JWT by apple-signin.p8: kid, iss TEAM123456, aud
                                  https://appleid.apple.com, sub the client id); code "bad..."
                                  answers 400 invalid_grant, any other a new refresh token
  POST /apple/revoke              checks the same, records the token (GET /control/log's revoked)
  POST /control/rotate            publishes the rotated key too
  GET  /control/log               {"key_fetches": {...}, "revoked": [...], "exchanged": [...], "refused": [...]}

Runs until its stdin closes (the test process ends).
"""
import base64
import datetime
import ipaddress
import json
import os
import secrets
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID

TEAM_ID, KEY_ID = "TEAM123456", "SIWAKEY123"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def jwk(kid, key):
    numbers = key.public_key().public_numbers()
    length = lambda n: (n.bit_length() + 7) // 8  # noqa: E731
    return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
            "n": b64url(numbers.n.to_bytes(length(numbers.n), "big")),
            "e": b64url(numbers.e.to_bytes(length(numbers.e), "big"))}


def make_material(workdir):
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "social peer CA")])
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
    files = {"ca.pem": ca.public_bytes(serialization.Encoding.PEM), "cert.pem": cert.public_bytes(serialization.Encoding.PEM),
             "key.pem": pem(key)}
    rsa_keys = {}
    for name in ("apple", "google", "rotated"):
        rsa_keys[name] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        files[f"rsa-{name}.pem"] = pem(rsa_keys[name])
    signin = ec.generate_private_key(ec.SECP256R1())
    files["apple-signin.p8"] = pem(signin)
    for name, data in files.items():
        with open(os.path.join(workdir, name), "wb") as f:
            f.write(data)
    return rsa_keys, signin.public_key()


class State:
    def __init__(self, rsa_keys, signin_public):
        self.rsa_keys, self.signin_public = rsa_keys, signin_public
        self.rotated, self.lock = False, threading.Lock()
        self.log = {"key_fetches": {"apple": 0, "google": 0}, "revoked": [], "exchanged": [], "refused": []}

    def client_secret_ok(self, form):
        """Whether client_secret is an ES256 JWT by the Sign in with Apple key for client_id."""
        try:
            header_b64, claims_b64, signature_b64 = form["client_secret"].split(".")
            header, claims = json.loads(b64url_decode(header_b64)), json.loads(b64url_decode(claims_b64))
            signature = b64url_decode(signature_b64)
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            self.signin_public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        except (KeyError, ValueError, InvalidSignature):
            return False
        return (header.get("alg") == "ES256" and header.get("kid") == KEY_ID and claims.get("iss") == TEAM_ID
                and claims.get("aud") == "https://appleid.apple.com" and claims.get("sub") == form.get("client_id")
                and claims.get("exp", 0) > time.time())


class Handler(BaseHTTPRequestHandler):
    state = None

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        state = self.state
        if self.path in ("/apple/keys", "/google/keys"):
            provider = self.path.split("/")[1]
            with state.lock:
                state.log["key_fetches"][provider] += 1
                keys = [jwk(f"{provider}-1", state.rsa_keys[provider])]
                if state.rotated:
                    keys.append(jwk("rotated-1", state.rsa_keys["rotated"]))
            return self.answer(200, {"keys": keys})
        if self.path == "/control/log":
            with state.lock:
                return self.answer(200, state.log)
        self.answer(404, {"error": "not_found"})

    def do_POST(self):
        state = self.state
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        if self.path == "/control/rotate":
            with state.lock:
                state.rotated = True
            return self.answer(200, {})
        form = dict(urllib.parse.parse_qsl(raw))
        if self.path not in ("/apple/token", "/apple/revoke"):
            return self.answer(404, {"error": "not_found"})
        if self.headers.get("Content-Type") != "application/x-www-form-urlencoded" or not state.client_secret_ok(form):
            with state.lock:
                state.log["refused"].append(self.path)
            return self.answer(400, {"error": "invalid_client"})
        if self.path == "/apple/token":
            if form.get("grant_type") != "authorization_code" or form.get("code", "").startswith("bad"):
                return self.answer(400, {"error": "invalid_grant"})
            token = "rt-" + secrets.token_hex(8)
            with state.lock:
                state.log["exchanged"].append({"code": form.get("code"), "refresh_token": token, "client_id": form["client_id"]})
            return self.answer(200, {"access_token": "at", "token_type": "Bearer", "expires_in": 3600,
                                     "refresh_token": token, "id_token": "unused"})
        if form.get("token_type_hint") != "refresh_token" or not form.get("token"):
            return self.answer(400, {"error": "invalid_request"})
        with state.lock:
            state.log["revoked"].append({"token": form["token"], "client_id": form["client_id"]})
        self.answer(200, {})


def main():
    workdir = sys.argv[1]
    os.makedirs(workdir, exist_ok=True)
    rsa_keys, signin_public = make_material(workdir)
    Handler.state = State(rsa_keys, signin_public)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(workdir, "cert.pem"), os.path.join(workdir, "key.pem"))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(os.path.join(workdir, "peer.json.tmp"), "w") as f:
        json.dump({"port": server.server_address[1], "team_id": TEAM_ID, "key_id": KEY_ID}, f)
    os.rename(os.path.join(workdir, "peer.json.tmp"), os.path.join(workdir, "peer.json"))
    sys.stdin.read()  # until the test process ends


if __name__ == "__main__":
    main()
