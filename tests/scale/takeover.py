"""How long bot turns wait when the process playing them is killed (issue 20, fast takeover).

Two server processes on one PostgreSQL database of their own. People play N matches against a
bot through process A, so that A's own writes wake A's bots and A claims their turns. After a
few seconds A is killed with SIGKILL, holding whatever it had claimed. The script then watches
through process B until every match's bot turn has been played, and prints how long after the
kill the last and the median one took, and how many leases A died holding.

    cargo build && python3 tests/scale/takeover.py [--matches 40] [--level basic] [--runs 3]
    cargo build --release && python3 tests/scale/takeover.py --binary target/release/kings-corner

It needs PostgreSQL on 127.0.0.1:5432 (PG_URL_BASE to change that) and makes and drops a
database `kc_takeover`. It is a measurement, not part of `.ci/run`.
"""

import argparse
import atexit
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from local_server import call, free_port  # noqa: E402

BINARY = ROOT / "target" / "debug" / "kings-corner"  # --binary to choose another
BASE = os.environ.get("PG_URL_BASE", "postgres://postgres@127.0.0.1:5432")
DATABASE = f"{BASE}/kc_takeover"


def psql(url, sql):
    return subprocess.run(["psql", url, "-Atqc", sql], check=True, capture_output=True, text=True).stdout.strip()


def start():
    port = free_port()
    environment = dict(
        os.environ,
        DATABASE_URL=DATABASE,
        BIND_ADDRESS=f"127.0.0.1:{port}",
        LOG_LEVEL="error",
        JWT_SECRET="takeover-measurement-" + "x" * 32,
        REGISTRATIONS_PER_MINUTE="10000",
        LOGIN_ATTEMPTS_PER_MINUTE="10000",
    )
    process = subprocess.Popen([str(BINARY)], env=environment, stdout=subprocess.DEVNULL)
    atexit.register(process.kill)
    server = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(server + "/healthz")
            return process, server
        except OSError:
            time.sleep(0.1)
    raise SystemExit("FAILED: a server did not start")


def play(server, token, match_id, stop):
    """The person's side: whenever it is their turn, draw or end it (else the first action)."""
    while not stop.is_set():
        try:
            status, view = call(server, "GET", f"/v1/matches/{match_id}/view", token)
            if status != 200 or view["status"] != "playing":
                return
            if view["turn"] == view["your_seat"]:
                actions = view["legal_actions"]
                action = next((a for a in actions if a["type"] in ("end_turn", "draw")), actions[0])
                body = {"expected_version": view["version"], "action": action}
                call(server, "POST", f"/v1/matches/{match_id}/moves", token, body)
            else:
                time.sleep(0.02)
        except OSError:
            return  # the server was killed


def run(matches, level):
    psql(f"{BASE}/postgres", "DROP DATABASE IF EXISTS kc_takeover")
    psql(f"{BASE}/postgres", "CREATE DATABASE kc_takeover")
    a, server_a = start()
    b, server_b = start()
    tokens, ids = [], []
    for index in range(matches):
        credentials = {"username": f"player{index}", "password": "correct horse"}
        call(server_a, "POST", "/v1/accounts", body=credentials)
        status, login = call(server_a, "POST", "/v1/auth/login", body=credentials)
        assert status == 200, login
        tokens.append(login["access_token"])
        body = {"seats": 2, "bots": [{"level": level}]}
        status, created = call(server_a, "POST", "/v1/matches", login["access_token"], body)
        assert status == 201, created
        ids.append(created["id"])
    stop = threading.Event()
    for token, match_id in zip(tokens, ids):
        threading.Thread(target=play, args=(server_a, token, match_id, stop), daemon=True).start()
    time.sleep(4)
    stop.set()
    a.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    a.wait()
    held = int(psql(DATABASE, "SELECT count(*) FROM matches WHERE bot_lease IS NOT NULL"))
    waits, pending = [], set(range(matches))
    while pending and time.monotonic() - killed < 120:
        for index in list(pending):
            _, view = call(server_b, "GET", f"/v1/matches/{ids[index]}/view", tokens[index])
            if view["status"] != "playing" or view["turn"] == view["your_seat"]:
                waits.append(time.monotonic() - killed)
                pending.discard(index)
        time.sleep(0.05)
    b.send_signal(signal.SIGTERM)
    b.wait()
    psql(f"{BASE}/postgres", "DROP DATABASE IF EXISTS kc_takeover")
    waits.sort()
    print(
        f"{matches} matches against {level} bots; A died holding {held} bot leases; "
        f"every bot turn played {waits[-1]:.2f} s after the kill (median {waits[len(waits) // 2]:.2f} s); "
        f"unplayed: {len(pending)}"
    )
    return not pending


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--level", default="basic")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--binary", type=Path, default=None)
    arguments = parser.parse_args()
    if arguments.binary:
        global BINARY
        BINARY = arguments.binary.resolve()
    ok = all([run(arguments.matches, arguments.level) for _ in range(arguments.runs)])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
