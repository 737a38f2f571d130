"""Fuzzes the API against its own description (issue 16, finding 12): Schemathesis (pinned in
tests/fuzz/requirements.txt) sends requests valid and invalid by openapi/openapi.json, logged in
as a player with matches of their own, and runs every check (`--checks all`): no 5xx, every
status and body as described, valid data accepted and invalid data refused. Only the operations
that end the fuzzer's own session are left out (deleting the account, logging out). Where the
server checks more than a schema can say (BEYOND_THE_SCHEMA), a schema-valid request may be
refused only for the reasons tests/fuzz/hooks.py lists (two fields tied together, the table's
state, the present moment, a cursor the server did not write).

    python3 tests/fuzz/run.py target/debug/kings-corner

Exits non-zero when Schemathesis finds anything.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
import local_server  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCHEMATHESIS = pathlib.Path(sys.executable).parent / "schemathesis"

# Ending the fuzzer's own session would leave every later case to fail as 401.
LEFT_OUT = [
    ("DELETE", "/v1/me"),
    ("POST", "/v1/auth/logout"),
]

# Long-polls and streams: each case holds on for up to a second (MAX_HOLD_SECONDS), so each is
# fuzzed in a process of its own, alongside the rest.
HOLDING = [
    ("GET", "/v1/matches/{id}/events"),
    ("GET", "/v1/matches/{id}/stream"),
    ("GET", "/v1/me/events"),
    ("GET", "/v1/me/stream"),
]

# Operations whose inputs are checked beyond what a schema can say, so that a schema-valid request
# may be refused; they are written in each operation's text. For these the check of schema-valid
# requests being accepted is replaced by tests/fuzz/hooks.py's `refused_only_across_fields`,
# which lets through exactly the refusals no schema of the request alone can foresee (each one
# listed there) and fails on any other; every other check runs on them, in a run of their own.
BEYOND_THE_SCHEMA = [
    # `seats` equals `rules.players` when both are given; what a bot table accepts.
    ("POST", "/v1/matches"),
    # `cursor` is an opaque `next_cursor` the server gave: another string is refused.
    ("GET", "/v1/matches"),
    # The URL's host must resolve to an address webhooks may reach.
    ("POST", "/v1/me/webhooks"),
    # Whether an action is legal depends on the table (the cards in hand, the piles).
    ("POST", "/v1/matches/{id}/moves"),
    # A rated seek takes no bots; `bot_level` goes with `bots_after_seconds`; `min` ≤ `max`.
    ("POST", "/v1/seeks"),
    # `until` is in the future and within the days the account holds.
    ("POST", "/v1/me/vacation"),
    # `time_zone` is one of the IANA database's names (a list of data, not a bound).
    ("PUT", "/v1/me/alerts"),
    # The endpoint resolves to a public address; `keys.p256dh` is a point on P-256.
    ("POST", "/v1/me/push-subscriptions"),
    # Not the caller's own name (docs/community.md).
    ("POST", "/v1/me/blocks/{username}"),
    ("POST", "/v1/me/follows/{username}"),
    # The fields a report names go with what it is about, and name something the reporter can
    # see that is not its own (docs/community.md, "Reporting").
    ("POST", "/v1/reports"),
]


def call(server, method, path, body=None, token=None):
    request = urllib.request.Request(server + path, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(request, data) as answer:
        return json.loads(answer.read() or b"null")


def run_together(commands, directory):
    """Runs the commands at once, then prints each one's output in turn; their exit codes."""
    logs = [directory / f"schemathesis-{number}.log" for number in range(len(commands))]
    # The hooks module's check (`refused_only_across_fields`) joins `--checks all`.
    environment = dict(
        os.environ,
        SCHEMATHESIS_HOOKS="hooks",
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])),
    )
    running = []
    for command, log in zip(commands, logs):
        with open(log, "wb") as output:
            running.append(
                subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=environment)
            )
    outcomes = [process.wait() for process in running]
    for log in logs:
        sys.stdout.write(log.read_text(errors="replace"))
    return outcomes


def main():
    binary = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/debug/kings-corner")
    with tempfile.TemporaryDirectory() as directory:
        process, server = local_server.start(
            binary.resolve(),
            pathlib.Path(directory) / "fuzz.db",
            REGISTRATIONS_PER_MINUTE="10000",
            LOGIN_ATTEMPTS_PER_MINUTE="10000",
            # Long-polls and streams answer within a second instead of holding on for a minute
            # or more: what they answer is the same, and the run stays short.
            MAX_HOLD_SECONDS="1",
            # The run may outlast an access token's default 15 minutes.
            ACCESS_TOKEN_TTL_SECONDS="86400",
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
                "--max-examples", sys.argv[2] if len(sys.argv) > 2 else "100",
                "--seed", "1",
                "--request-timeout", "30",
                "--max-response-time", "20",
                "--workers", "1",
                "--suppress-health-check", "all",
                "--warnings", "off",
            ]
            # Several Schemathesis processes at once, each with one worker: Hypothesis describing
            # strategies in several threads of one process trips over CPython 3.11's parser
            # ("AST constructor recursion depth mismatch").
            everything_else = list(common)
            for method, path in LEFT_OUT + BEYOND_THE_SCHEMA + HOLDING:
                everything_else += ["--exclude-name", f"{method} {path}"]
            beyond = common + ["--exclude-checks", "positive_data_acceptance"]
            for method, path in BEYOND_THE_SCHEMA:
                beyond += ["--include-name", f"{method} {path}"]
            holding = [common + ["--include-name", f"{method} {path}"] for method, path in HOLDING]
            outcomes = run_together([everything_else, beyond, *holding], pathlib.Path(directory))
        finally:
            process.kill()
            process.wait()
    if any(outcomes):
        raise SystemExit("FAILED: Schemathesis found requests the server and its description disagree on")
    print("ok: Schemathesis found nothing")


main()
