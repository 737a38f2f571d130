"""Letters through a real SMTP server: aiosmtpd (pinned, tests/mail/requirements.txt) on a
loopback port with STARTTLS required on a throwaway certificate and AUTH required after it.

Two kings-corner processes on one fresh PostgreSQL database send through it (SMTP_URL with
`?tls=required` and credentials, SMTP_CA_FILE trusting the certificate). The test:

1. verifies an address by the link of its letter, and checks the letters' headers against the
   RFCs they follow (RFC 5322 Message-ID and Date, RFC 2045/2046 multipart/alternative with
   text/plain and text/html, RFC 2369/8058 List-Unsubscribe and List-Unsubscribe-Post, RFC 3834
   Auto-Submitted), and that the server spoke STARTTLS and AUTH before sending;
2. queues many alert letters while the SMTP server answers slowly, kills one process with
   SIGKILL in the middle, and checks that every letter arrived exactly once (no two with one
   Message-ID, none missing), the dead process's claims taken over by the other;
3. follows a letter's one-click unsubscribe (RFC 8058: a POST of List-Unsubscribe=One-Click).

    python3 tests/mail/run.py target/debug/kings-corner
"""

import asyncio
import atexit
import email
import email.policy
import json
import os
import pathlib
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import http.client
import logging

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

# aiosmtpd 1.4 logs a warning about its own attribute on every login.
logging.getLogger("mail.log").setLevel(logging.ERROR)

PG = os.environ.get("PG_URL_BASE", "postgres://postgres@127.0.0.1:5432")
USER, SECRET = "kings", "an smtp password"
PASSWORD = "correct horse"


def log(message):
    print(f"[mail] {message}", flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(what, check, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"FAILED: {what} did not happen within {seconds} s")


class Mailbox:
    """What the SMTP server accepted, and how each session went."""

    def __init__(self):
        self.messages = []
        self.lock = threading.Lock()
        self.logins = 0
        self.delay = 0.0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        # Slow before the message is taken, so that a process killed meanwhile has sent
        # nothing (the SMTP server keeps a message once it has replied to its final dot).
        await asyncio.sleep(self.delay)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if not session.ssl:
            return "530 5.7.0 STARTTLS first"
        if not session.authenticated:
            return "530 5.7.0 AUTH first"
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        with self.lock:
            self.messages.append((list(envelope.rcpt_tos), message))
        return "250 2.0.0 queued"

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        if isinstance(auth_data, LoginPassword) and auth_data.login.decode() == USER \
                and auth_data.password.decode() == SECRET:
            with self.lock:
                self.logins += 1
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    def to(self, address):
        with self.lock:
            return [message for rcpt, message in self.messages if address in rcpt]


def throwaway_certificate(directory):
    """A throwaway certificate authority (its certificate is what SMTP_CA_FILE trusts) and a
    server certificate for `localhost` it signed (rustls, as webpki, takes no CA certificate as
    a server's own)."""
    ca_key, ca_cert = directory / "ca-key.pem", directory / "ca.pem"
    key, request_file, cert = directory / "key.pem", directory / "server.csr", directory / "cert.pem"
    extensions = directory / "server.ext"
    extensions.write_text("subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
    run = lambda *arguments: subprocess.run(["openssl", *arguments], check=True, capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=kings-corner test CA",
        "-keyout", str(ca_key), "-out", str(ca_cert))
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(request_file))
    run("x509", "-req", "-in", str(request_file), "-CA", str(ca_cert), "-CAkey", str(ca_key), "-CAcreateserial",
        "-days", "1", "-extfile", str(extensions), "-out", str(cert))
    return ca_cert, cert, key


def request(port, method, path, token=None, body=None, headers=None, raw=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        sent = dict(headers or {})
        if token:
            sent["authorization"] = f"Bearer {token}"
        data = raw
        if body is not None:
            sent["content-type"] = "application/json"
            data = json.dumps(body)
        connection.request(method, path, data, sent)
        response = connection.getresponse()
        text = response.read()
        try:
            return response.status, json.loads(text) if text else None
        except ValueError:
            return response.status, text.decode()
    finally:
        connection.close()


class Server:
    def __init__(self, index, binary, workdir, environment):
        self.index, self.binary, self.port = index, binary, free_port()
        self.log = open(workdir / f"server-{index}.log", "ab")
        self.environment = dict(os.environ, **environment, BIND_ADDRESS=f"127.0.0.1:{self.port}")
        self.process = subprocess.Popen([str(binary)], env=self.environment, stdout=self.log, stderr=self.log)
        atexit.register(self.kill)
        wait_until(f"server {index}", lambda: request(self.port, "GET", "/readyz")[0] == 200, 60)

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


def token_in(message, marker):
    text = message.get_body(preferencelist=("plain",)).get_content()
    found = re.search(re.escape(marker) + r"([A-Za-z0-9_-]+)", text)
    assert found, f"no {marker} in {text}"
    return found.group(1)


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def check_headers(message, unsubscribe):
    """The headers of a letter, against the RFCs they follow."""
    check(re.fullmatch(r"<[0-9a-f-]{36}@example\.test>", message["Message-ID"] or ""), f"RFC 5322 Message-ID: {message['Message-ID']}")
    check(message["Date"] is not None and message["Date"].datetime is not None, "RFC 5322 Date")
    check(message["From"].addresses[0].addr_spec == "kings@example.test", "From")
    check(message.get_content_type() == "multipart/alternative", "RFC 2046 multipart/alternative")
    kinds = [part.get_content_type() for part in message.iter_parts()]
    check(kinds == ["text/plain", "text/html"], f"plain text first, then HTML (RFC 2046 §5.1.4): {kinds}")
    check(message["Auto-Submitted"] == "auto-generated", "RFC 3834 Auto-Submitted")
    if unsubscribe:
        value = message["List-Unsubscribe"]
        check(re.fullmatch(r"<https://kings\.example\.test/v1/alerts/unsubscribe/[A-Za-z0-9_-]+>", value or ""),
              f"RFC 2369 List-Unsubscribe, an https URI in angle brackets (RFC 8058 §3.1): {value}")
        check(message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click", "RFC 8058 List-Unsubscribe-Post")
    else:
        check(message["List-Unsubscribe"] is None, "no List-Unsubscribe on a letter that is not a list's")


def main():
    binary = pathlib.Path(sys.argv[1]).resolve()
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="kc-mail-"))
    ca, cert, key = throwaway_certificate(workdir)
    mailbox = Mailbox()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    smtp_port = free_port()
    controller = Controller(
        mailbox, hostname="127.0.0.1", port=smtp_port, tls_context=context, require_starttls=True,
        authenticator=mailbox.authenticate, auth_required=True, auth_require_tls=True,
    )
    controller.start()
    atexit.register(controller.stop)

    database = f"kc_mail_{os.getpid()}"
    subprocess.run(["psql", f"{PG}/postgres", "-qc", f"CREATE DATABASE {database}"], check=True)
    atexit.register(lambda: subprocess.run(["psql", f"{PG}/postgres", "-qc", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"]))
    environment = {
        "DATABASE_URL": f"{PG}/{database}",
        "LOG_LEVEL": "warn",
        "REGISTRATIONS_PER_MINUTE": "10000",
        "LOGIN_ATTEMPTS_PER_MINUTE": "10000",
        "SMTP_URL": f"smtp://{USER}:{urllib.parse.quote(SECRET)}@localhost:{smtp_port}?tls=required",
        "SMTP_CA_FILE": str(ca),
        "MAIL_FROM": "Kings Corner <kings@example.test>",
        "PUBLIC_URL": "https://kings.example.test",
    }
    servers = [Server(index, binary, workdir, environment) for index in range(2)]
    port = servers[1].port

    def account(name):
        status, _ = request(port, "POST", "/v1/accounts", body={"username": name, "password": PASSWORD})
        check(status == 201, f"register {name}")
        status, tokens = request(port, "POST", "/v1/auth/login", body={"username": name, "password": PASSWORD})
        return tokens["access_token"]

    # 1. A verified address, over STARTTLS and AUTH.
    host, maya = account("host"), account("maya")
    for token, name in ((host, "host"), (maya, "maya")):
        status, body = request(port, "PUT", "/v1/me/email", token, {"email": f"{name}@example.com", "password": PASSWORD})
        check(status == 202, f"set {name}'s address: {status} {body}")
    wait_until("the verification letters", lambda: len(mailbox.to("maya@example.com")) == 1 and len(mailbox.to("host@example.com")) == 1)
    check(mailbox.logins >= 1, "the server authenticated (AUTH after STARTTLS)")
    letter = mailbox.to("maya@example.com")[0]
    check_headers(letter, unsubscribe=False)
    status, _ = request(port, "POST", "/v1/auth/email-verification", body={"token": token_in(letter, "verify-email=")})
    check(status == 204, "verified")
    status, me = request(port, "GET", "/v1/me", maya)
    check(me["email"]["verified"] is True, f"verified: {me}")
    log("verification letter: STARTTLS, AUTH, headers as the RFCs say")

    # A reset for a known address and for unknown ones: the same answer, in the same time (it
    # is given before anything is looked up). Four of each, interleaved (the limit is ten an
    # hour per client).
    times = {"known": [], "unknown": []}
    answers = set()
    for round_ in range(4):
        for kind, address in (("known", "maya@example.com"), ("unknown", f"nobody{round_}@example.com")):
            started = time.perf_counter()
            status, body = request(port, "POST", "/v1/auth/password-reset", body={"email": address})
            times[kind].append(time.perf_counter() - started)
            answers.add((status, json.dumps(body, sort_keys=True)))
    check(len(answers) == 1, f"one answer for known and unknown addresses: {answers}")
    median = {kind: sorted(values)[len(values) // 2] * 1000 for kind, values in times.items()}
    check(abs(median["known"] - median["unknown"]) < 20,
          f"reset answers took {median['known']:.1f} ms (known) and {median['unknown']:.1f} ms (unknown)")
    log(f"reset answers alike: median {median['known']:.1f} ms for the known address, {median['unknown']:.1f} ms for unknown ones")
    wait_until("the reset letters", lambda: len(mailbox.to("maya@example.com")) == 5)
    check(all(not mailbox.to(f"nobody{round_}@example.com") for round_ in range(4)), "no letter to unknown addresses")

    status, _ = request(port, "PUT", "/v1/me/alerts", maya, {"email": ["invited"], "digest": "each", "digest_hour": 8,
                                                            "quiet_hours": None, "time_zone": "Europe/Berlin"})
    check(status == 200, "alerts on")

    # 2. Many letters at once, and a process killed while they go out. `each` mails as the
    # alerts come; what came while no process could send goes out together, so a letter may
    # hold several invitations: what must hold is that each is mailed, and mailed once.
    mailbox.delay = 0.15
    invitations = 30
    invited = set()
    for _ in range(invitations):
        status, created = request(port, "POST", "/v1/matches", host, {"seats": 2, "visibility": "private"})
        check(status == 201, f"a table: {status} {created}")
        invited.add(created["id"])
        status, _ = request(port, "POST", f"/v1/matches/{created['id']}/invitations", host, {"username": "maya"})
        check(status == 201, "an invitation")

    def alert_letters():
        return [message for message in mailbox.to("maya@example.com") if message["List-Unsubscribe"]]

    def tables_mailed():
        """Each table an alert letter links to, as often as letters link to it."""
        mentions = []
        for message in alert_letters():
            text = message.get_body(preferencelist=("plain",)).get_content()
            mentions.extend(set(re.findall(r"#/match/([0-9a-f-]{36})", text)))
        return mentions

    wait_until("some letters to go out", lambda: len(alert_letters()) >= 4, 60)
    servers[0].kill()
    log(f"server 0 killed with {len(alert_letters())} alert letters sent, for {len(set(tables_mailed()))} of {invitations} invitations")
    try:
        wait_until("every invitation's alert", lambda: set(tables_mailed()) >= invited, 120)
    except SystemExit:
        for sql in ("SELECT purpose, COUNT(*), COUNT(sent_at), COUNT(failed_at), COUNT(next_attempt_at), MAX(last_error) FROM outgoing_mail GROUP BY purpose",
                    "SELECT channel, COUNT(*) FROM pending_alerts GROUP BY channel",
                    "SELECT id, due_at, waiting, lease_until, last_sent_at FROM alert_queues"):
            print(subprocess.run(["psql", f"{PG}/{database}", "-Atc", sql], capture_output=True, text=True).stdout)
        raise
    time.sleep(8)  # past a lease: a letter sent twice would have arrived by now
    alerts = alert_letters()
    ids = [message["Message-ID"] for message in alerts]
    check(len(ids) == len(set(ids)), f"a letter arrived twice: {len(ids) - len(set(ids))} repeats")
    mentions = tables_mailed()
    check(sorted(mentions) == sorted(invited),
          f"each invitation mailed once: {len(mentions)} mentions of {len(set(mentions))} tables for {invitations}")
    for message in alerts:
        check_headers(message, unsubscribe=True)
    # The HTML of one, for a look (docs/notifications.md's picture of a letter is taken from it).
    html = alerts[0].get_body(preferencelist=("html",)).get_content()
    (workdir / "letter.html").write_text(html)
    log(f"an alert letter's HTML: {workdir / 'letter.html'}")
    log(f"{invitations} invitations in {len(alerts)} alert letters, each once, though a sending process was killed")

    # 3. One click.
    url = urllib.parse.urlparse(alerts[0]["List-Unsubscribe"].strip("<>"))
    status, body = request(port, "POST", url.path, raw="List-Unsubscribe=One-Click",
                           headers={"content-type": "application/x-www-form-urlencoded"})
    check(status == 200 and body == {"turned_off": ["invited"]}, f"one-click unsubscribe: {status} {body}")
    status, settings = request(port, "GET", "/v1/me/alerts", maya)
    check(settings["email"] == [], f"unsubscribed: {settings}")
    log("one-click unsubscribe (RFC 8058) turned the alerts off")
    print("ok: letters over STARTTLS and AUTH, headers per the RFCs, each letter once across a kill -9")


if __name__ == "__main__":
    main()
