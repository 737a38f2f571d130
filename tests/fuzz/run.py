"""Fuzzes the API against its own description (issue 16, finding 12): Schemathesis (pinned in
tests/fuzz/requirements.txt) sends requests valid and invalid by openapi/openapi.json, logged in
as a player with matches of their own, and runs every check (`--checks all`): no 5xx, every
status and body as described, valid data accepted and invalid data refused. Only the operations
that end the fuzzer's own session are left out (deleting the account, logging out), and the
acceptance of schema-valid requests where the server checks more than a schema can say
(see BEYOND_THE_SCHEMA).

    python3 tests/fuzz/run.py target/debug/kings-corner

Exits non-zero when Schemathesis finds anything.
"""

import json
import pathlib
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
import local_server  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCHEMATHESIS = pathlib.Path(sys.executable).parent / "schemathesis"

# Ending the fuzzer's own session would leave every later case to fail as 401.
LEFT_OUT = [
    ("DELETE", "/v1/me"),
    ("POST", "/v1/auth/logout"),
]

# Operations whose inputs are checked beyond what a schema can say, so that a schema-valid request
# may be refused; they are written in each operation's text. For these the one check of
# schema-valid requests being accepted is left out; every other check runs on them, in a run of
# their own.
BEYOND_THE_SCHEMA = [
    # `seats` equals `rules.players` when both are given; what a bot table accepts.
    ("POST", "/v1/matches"),
    # `cursor` is an opaque `next_cursor` the server gave: another string is refused.
    ("GET", "/v1/matches"),
    # The URL's host must resolve to an address webhooks may reach.
    ("POST", "/v1/me/webhooks"),
    # Whether an action is legal depends on the table (the cards in hand, the piles).
    ("POST", "/v1/matches/{id}/moves"),
]


def call(server, method, path, body=None, token=None):
    request = urllib.request.Request(server + path, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(request, data) as answer:
        return json.loads(answer.read() or b"null")


def main():
    binary = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug/kings-corner")
    with tempfile.TemporaryDirectory() as directory:
        process, server = local_server.start(
            binary.resolve(),
            pathlib.Path(directory) / "fuzz.db",
            REGISTRATIONS_PER_MINUTE="10000",
            LOGIN_ATTEMPTS_PER_MINUTE="10000",
        )
        try:
            account = {"username": "fuzzer", "password": "correct horse battery"}
            call(server, "POST", "/v1/accounts", account)
            token = call(server, "POST", "/v1/auth/login", account)["access_token"]
            # Something to find: an open match of the fuzzer's, and one being played.
            call(server, "POST", "/v1/matches", {"seats": 2}, token)
            call(server, "POST", "/v1/matches", {"seats": 2, "bots": [{"level": "random"}]}, token)
            common = [
                str(SCHEMATHESIS), "run", str(ROOT / "openapi" / "openapi.json"),
                "--url", server,
                "--header", f"Authorization: Bearer {token}",
                "--checks", "all",
                "--max-examples", sys.argv[2] if len(sys.argv) > 2 else "30",
                "--seed", "1",
                # Long-polls wait up to 60 s by design.
                "--request-timeout", "70",
                "--max-response-time", "65",
                "--workers", "4",
                "--suppress-health-check", "all",
                "--warnings", "off",
            ]
            everything_else = list(common)
            for method, path in LEFT_OUT + BEYOND_THE_SCHEMA:
                everything_else += ["--exclude-name", f"{method} {path}"]
            beyond = common + ["--exclude-checks", "positive_data_acceptance"]
            for method, path in BEYOND_THE_SCHEMA:
                beyond += ["--include-name", f"{method} {path}"]
            outcomes = [subprocess.run(command).returncode for command in (everything_else, beyond)]
        finally:
            process.kill()
            process.wait()
    if any(outcomes):
        raise SystemExit("FAILED: Schemathesis found requests the server and its description disagree on")
    print("ok: Schemathesis found nothing")


main()
