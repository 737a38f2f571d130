"""Instructions the server's request thread spends on one `GET /view`, counted by callgrind.

The server bench's rates move by 10 % and more from run to run on a shared 2-core machine,
more than a change to the request path is worth; an instruction count does not move. Each
server binary given is started under `valgrind --tool=callgrind` on a SQLite file of its own,
pinned to one core (so it runs one worker), at `LOG_LEVEL=error` as the server bench runs
it (`--log-level info` for the default), with two accounts and a started match; after 300
views to warm its caches the counters are zeroed, `--views` more are made on one keep-alive
connection, and the worker thread's instructions are divided by them:

    cargo build --release && cp target/release/kings-corner /tmp/kc-new
    python3 benches/view_instructions.py /tmp/kc-old /tmp/kc-new

User-space instructions only: the kernel's share (the sockets, a `getrandom` call) is not
counted, and SHA-256 counts as a software hash (valgrind's CPU seems to hide SHA-NI; the
same in every binary). Installs Debian's valgrind if it is missing.
"""
import argparse
import glob
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A server binary under callgrind, one thread's counts per file."""

    def __init__(self, binary, work, log_level):
        self.port = free_port()
        self.work = work
        env = dict(os.environ, DATABASE_URL=f"sqlite://{work}/db.sqlite",
                   BIND_ADDRESS=f"127.0.0.1:{self.port}", LOG_LEVEL=log_level)
        self.process = subprocess.Popen(
            ["taskset", "-c", "0", "valgrind", "--tool=callgrind", "--separate-threads=yes",
             f"--callgrind-out-file={work}/callgrind.out", binary],
            env=env, stdout=subprocess.DEVNULL, stderr=open(f"{work}/valgrind.log", "w"))
        # The server logs to stderr too: at `info` its lines land beside valgrind's.
        self.connection = None
        give_up = time.monotonic() + 300
        while True:
            try:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
                if self.call("GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > give_up or self.process.poll() is not None:
                sys.exit(f"{binary} never got ready under valgrind: see {work}/valgrind.log")
            time.sleep(0.5)

    def call(self, method, path, body=None, token=None):
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        self.connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = self.connection.getresponse()
        data = response.read()
        is_json = "json" in (response.getheader("content-type") or "")
        return response.status, json.loads(data) if data and is_json else data

    def control(self, command):
        subprocess.run(["callgrind_control", command, str(self.process.pid)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    def stop(self):
        self.process.terminate()
        self.process.wait()

    def busiest_thread_of_dump(self):
        """The instructions of the thread that did the most in the first dump (the worker)."""
        most = 0
        for path in glob.glob(f"{self.work}/callgrind.out.1-*"):
            text = open(path, errors="replace").read()
            found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
            if found:
                most = max(most, int(found.group(1)))
        return most


def per_view(binary, views, log_level):
    work = tempfile.mkdtemp(prefix="view-instructions-")
    server = Server(binary, work, log_level)
    try:
        tokens = []
        for name in ["counted-host", "counted-guest"]:
            account = {"username": name, "password": "correct horse"}
            server.call("POST", "/v1/accounts", account)
            tokens.append(server.call("POST", "/v1/auth/login", account)[1]["access_token"])
        rules = {"preset": "standard", "game_end": {"hands": 1000}}
        status, created = server.call("POST", "/v1/matches", {"rules": rules, "seats": 2}, tokens[0])
        assert status == 201, created
        view = f"/v1/matches/{created['id']}/view"
        status, joined = server.call("POST", f"/v1/matches/{created['id']}/join", {}, tokens[1])
        assert status == 200, joined
        for _ in range(300):
            assert server.call("GET", view, token=tokens[0])[0] == 200
        server.control("-z")
        for _ in range(views):
            assert server.call("GET", view, token=tokens[0])[0] == 200
        server.control("-d")
        time.sleep(1)
        return server.busiest_thread_of_dump() / views
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="+", help="server binaries (kings-corner) to count")
    parser.add_argument("--views", type=int, default=2000)
    parser.add_argument("--log-level", default="error",
                        help="the servers' LOG_LEVEL (`info` records every request's span)")
    arguments = parser.parse_args()
    if shutil.which("valgrind") is None:
        subprocess.run(["apt-get", "install", "-y", "valgrind"], check=True,
                       stdout=subprocess.DEVNULL)
    for binary in arguments.binaries:
        print(f"{binary}: {per_view(binary, arguments.views, arguments.log_level):,.0f} instructions per view",
              flush=True)


if __name__ == "__main__":
    main()
