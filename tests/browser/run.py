#!/usr/bin/env python3
"""The browser test (issue 11): a page served on another origin than the server, in headless
Chromium, logs in, follows a match over Server-Sent Events opened with a stream ticket, and
makes a move, all through CORS.

    python3 tests/browser/run.py target/debug/kings-corner

Needs Chromium (Debian's `chromium`, or CHROMIUM=/path) and Playwright for Python
(tests/browser/requirements.txt). Exits non-zero, saying why, when anything fails.
"""

import functools
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "support"))
import local_server  # noqa: E402
from local_server import call  # noqa: E402

PASSWORD = "correct horse battery"


def expect(condition, message):
    if not condition:
        raise SystemExit(f"FAILED: {message}")


class QuietPages(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve_page(port):
    handler = functools.partial(QuietPages, directory=str(HERE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/kings-corner"
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    page_port = local_server.free_port()
    page_origin = f"http://127.0.0.1:{page_port}"
    with tempfile.TemporaryDirectory() as scratch:
        process, server = local_server.start(
            binary, Path(scratch) / "browser.db", CORS_ALLOWED_ORIGINS=page_origin
        )
        httpd = serve_page(page_port)
        try:
            tokens = {}
            for name in ("alice", "bob"):
                expect(call(server, "POST", "/v1/accounts", body={"username": name, "password": PASSWORD})[0] == 201, "register")
                status, pair = call(server, "POST", "/v1/auth/login", body={"username": name, "password": PASSWORD})
                expect(status == 200, "login")
                tokens[name] = pair["access_token"]
            status, created = call(server, "POST", "/v1/matches", tokens["alice"], {"seats": 2})
            expect(status == 201, f"create answered {status}")
            match = created["id"]
            expect(call(server, "POST", f"/v1/matches/{match}/join", tokens["bob"], {})[0] == 200, "join")
            status, view = call(server, "GET", f"/v1/matches/{match}/view", tokens["alice"])
            user = "alice" if view["turn"] == view["your_seat"] else "bob"

            url = (f"{page_origin}/page.html?server={server}&match={match}"
                   f"&user={user}&password={urllib.request.quote(PASSWORD)}")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, headless=True, args=["--no-sandbox"])
                page = browser.new_page()
                page.goto(url)
                page.wait_for_function(
                    "() => /^(done|failed)/.test(document.getElementById('status').textContent)",
                    timeout=30_000)
                outcome = page.inner_text("#status")
                events = page.inner_text("#log")
                browser.close()
            print(outcome)
            expect(outcome.startswith("done "), f"{outcome}\n{events}")
            result = json.loads(outcome[len("done "):])
            expect(result["moved"] == 200, "the move through CORS was accepted")
            expect(result["etag"], "the view's ETag was readable (exposed by CORS)")
            expect(result["requestId"], "x-request-id was readable (exposed by CORS)")
            expect(result["last"] >= result["after"], "the move's events arrived over SSE")
            status, after = call(server, "GET", f"/v1/matches/{match}/view", tokens[user])
            expect(after["version"] == result["after"], "the server's log holds the move")
            print(f"ok: the page on {page_origin} moved in match {match} "
                  f"(version {result['before']} -> {result['after']}) and saw {result['seen']} events over SSE")
        finally:
            httpd.shutdown()
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                # Still draining a stream the browser left: no need to wait for it.
                process.kill()
                process.wait()


if __name__ == "__main__":
    main()
