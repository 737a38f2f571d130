"""Web Push against a push service written here (RFC 8030) that decrypts every message with
the subscription's private key through an independent implementation (http_ece, pinned) and
checks the VAPID token's signature (py-vapid) and claims (RFC 8292).

A kings-corner server (SQLite) with WEBHOOK_ALLOWED_NETWORKS=127.0.0.1/32, so that the loopback
push service passes the guard on where requests go. The test registers two devices of one
player, one whose push service answers 410 Gone; turns push alerts on; has another player invite
them; and checks that the first device's message decrypts to the service worker's JSON, that the
VAPID token is signed by the key `GET /v1/push/key` publishes and names the push service's
origin, that the gone device was removed, and that endpoints on private networks and bad keys
are refused with nothing stored.

    python3 tests/push/run.py target/debug/kings-corner [--postgres]

With `--postgres`, on a fresh database of the PostgreSQL server at PG_URL_BASE (default
postgres://postgres@127.0.0.1:5432), dropped at the end; else on a SQLite file.
"""

import base64
import http.client
import http.server
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import atexit

import http_ece
import py_vapid
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

PASSWORD = "correct horse"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def wait_until(what, test, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if test():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"FAILED: {what} did not happen within {seconds} s")


def request(port, method, path, token=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"content-type": "application/json"} if body is not None else {}
        if token:
            headers["authorization"] = f"Bearer {token}"
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = connection.getresponse()
        text = response.read()
        return response.status, json.loads(text) if text else None
    finally:
        connection.close()


class Device:
    """A browser's side of a subscription: its key pair and auth secret."""

    def __init__(self, name, endpoint):
        self.name, self.endpoint = name, endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self):
        public = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"name": self.name, "endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}


class PushService:
    """RFC 8030's receiving end on loopback: keeps each request; `/gone/…` answers 410."""

    def __init__(self):
        self.received = []
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                service.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(410 if self.path.startswith("/gone/") else 201)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def verify_vapid(header, published_key, audience):
    """RFC 8292 §3: `vapid t=<JWT>, k=<key>`; the JWT ES256-signed by k for the push service."""
    check(header.startswith("vapid "), f"the vapid scheme: {header}")
    parts = dict(part.strip().split("=", 1) for part in header[len("vapid "):].split(","))
    check(parts["k"] == published_key, "k is the key GET /v1/push/key publishes")
    signed, signature = parts["t"].rsplit(".", 1)
    check(py_vapid.Vapid02.from_raw_public(parts["k"].encode()).verify_token(signed.encode(), signature),
          "the VAPID signature verifies (py-vapid)")
    header_json = json.loads(unb64url(signed.split(".")[0]))
    claims = json.loads(unb64url(signed.split(".")[1]))
    check(header_json == {"typ": "JWT", "alg": "ES256"}, f"the JWT header: {header_json}")
    check(claims["aud"] == audience, f"aud is the push service's origin: {claims}")
    check(time.time() < claims["exp"] <= time.time() + 24 * 3600, f"exp within 24 hours: {claims}")
    check(claims.get("sub") == "https://kings.example.test", f"sub: {claims}")


def main():
    binary = pathlib.Path(sys.argv[1]).resolve()
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="kc-push-"))
    service = PushService()
    port = free_port()
    database = f"sqlite://{workdir}/kc.db"
    if "--postgres" in sys.argv[2:]:
        base = os.environ.get("PG_URL_BASE", "postgres://postgres@127.0.0.1:5432")
        name = f"kc_push_{os.getpid()}"
        subprocess.run(["psql", f"{base}/postgres", "-qc", f"CREATE DATABASE {name}"], check=True)
        atexit.register(lambda: subprocess.run(["psql", f"{base}/postgres", "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"]))
        database = f"{base}/{name}"
    environment = dict(os.environ, DATABASE_URL=database, BIND_ADDRESS=f"127.0.0.1:{port}",
                       LOG_LEVEL="warn", WEBHOOK_ALLOWED_NETWORKS="127.0.0.1/32", PUBLIC_URL="https://kings.example.test")
    environment.pop("SMTP_URL", None)
    with open(workdir / "server.log", "ab") as log:
        server = subprocess.Popen([str(binary)], env=environment, stdout=log, stderr=log)
    atexit.register(lambda: server.poll() is None and server.send_signal(signal.SIGKILL))
    wait_until("the server", lambda: request(port, "GET", "/readyz")[0] == 200, 60)

    def account(name):
        request(port, "POST", "/v1/accounts", body={"username": name, "password": PASSWORD})
        return request(port, "POST", "/v1/auth/login", body={"username": name, "password": PASSWORD})[1]["access_token"]

    host, maya = account("host"), account("maya")
    status, key = request(port, "GET", "/v1/push/key")
    check(status == 200 and len(unb64url(key["public_key"])) == 65, f"the public key: {key}")

    phone = Device("Maya's phone", f"http://127.0.0.1:{service.port}/send/phone")
    old = Device("An old laptop", f"http://127.0.0.1:{service.port}/gone/laptop")

    # Bad input: refused, nothing stored.
    for endpoint in ("http://10.1.2.3/send", "https://169.254.169.254/latest", "https://192.168.0.1/x",
                     "ftp://push.example.com/x", "https://user:pass@push.example.com/x"):
        bad = dict(phone.subscription(), endpoint=endpoint)
        status, problem = request(port, "POST", "/v1/me/push-subscriptions", maya, bad)
        check(status == 422 and problem["code"] == "invalid_push_subscription" and problem["field"] == "endpoint",
              f"{endpoint} refused: {status} {problem}")
    bad_keys = phone.subscription()
    bad_keys["keys"] = {"p256dh": b64url(b"\x04" + b"\x01" * 64), "auth": b64url(os.urandom(16))}
    status, problem = request(port, "POST", "/v1/me/push-subscriptions", maya, bad_keys)
    check(status == 422 and problem["field"] == "keys", f"a point off the curve refused: {status} {problem}")
    short_auth = phone.subscription()
    short_auth["keys"]["auth"] = b64url(os.urandom(8))
    status, problem = request(port, "POST", "/v1/me/push-subscriptions", maya, short_auth)
    check(status == 422 and problem["field"] == "keys", f"a short auth secret refused: {status} {problem}")
    check(request(port, "GET", "/v1/me/push-subscriptions", maya)[1]["subscriptions"] == [], "nothing stored")

    for device in (phone, old):
        status, view = request(port, "POST", "/v1/me/push-subscriptions", maya, device.subscription())
        check(status == 201 and view["name"] == device.name, f"{device.name} registered: {status} {view}")
        check(view["push_service"] == f"http://127.0.0.1:{service.port}", f"the push service's origin only: {view}")
    status, again = request(port, "POST", "/v1/me/push-subscriptions", maya, phone.subscription())
    check(status == 200, f"the same endpoint again updates: {status}")
    status, settings = request(port, "PUT", "/v1/me/alerts", maya, {"email": [], "push": ["invited"], "digest": "each",
                                                                   "digest_hour": 8, "quiet_hours": None, "time_zone": "UTC"})
    check(status == 200 and settings["push"] == ["invited"], f"push alerts on: {status} {settings}")

    status, created = request(port, "POST", "/v1/matches", host, {"seats": 2, "visibility": "private"})
    request(port, "POST", f"/v1/matches/{created['id']}/invitations", host, {"username": "maya"})
    wait_until("a message to each device", lambda: len(service.received) >= 2)
    by_path = {path: (headers, body) for path, headers, body in service.received}
    headers, body = by_path["/send/phone"]
    check(headers["content-encoding"] == "aes128gcm", "RFC 8291's content coding")
    check(int(headers["ttl"]) > 0, "a TTL (RFC 8030 §5.2)")
    verify_vapid(headers["authorization"], key["public_key"], f"http://127.0.0.1:{service.port}")
    plaintext = http_ece.decrypt(body, private_key=phone.key, auth_secret=phone.auth, version="aes128gcm")
    message = json.loads(plaintext)
    check(message["title"] == "An invitation to a Kings Corner table", f"title: {message}")
    check(message["body"] == "host invites you to a private table of 2 seats.", f"body: {message}")
    check(message["url"] == f"#/match/{created['id']}", f"the table to open: {message}")
    try:
        http_ece.decrypt(body, private_key=old.key, auth_secret=old.auth, version="aes128gcm")
        check(False, "another device's key decrypts nothing")
    except Exception:
        pass
    print("[push] the phone's message decrypts (http_ece) and its VAPID token verifies (py-vapid)", flush=True)

    wait_until("the gone device removed", lambda: [s["name"] for s in request(port, "GET", "/v1/me/push-subscriptions", maya)[1]["subscriptions"]] == ["Maya's phone"])
    print("[push] the device whose push service answered 410 was removed", flush=True)
    status, _ = request(port, "DELETE", f"/v1/me/push-subscriptions/{again['id']}", maya)
    check(status == 204, "a device removed by its owner")
    print(f"ok: Web Push encrypted per RFC 8291, signed per RFC 8292, gone devices removed, private endpoints refused ({database.split(':')[0]})")


if __name__ == "__main__":
    main()
