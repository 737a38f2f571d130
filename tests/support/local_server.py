"""The server binary on a free local port with its own SQLite file, for the Python-driven
checks (tests/browser, tests/clients, tests/walkthrough). Import it after putting this folder
on `sys.path`.
"""

import os
import socket
import subprocess
import time
import urllib.request


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(binary, database, port=None, **settings):
    """Starts `binary` on `database` (with any further settings as environment variables) and
    waits for `/healthz`: the process and the server's address. `port` is free by default (give
    the old one to restart a server where its clients look for it). Raises SystemExit when it
    does not come up."""
    port = port or free_port()
    server = f"http://127.0.0.1:{port}"
    environment = dict(
        os.environ,
        DATABASE_URL=f"sqlite://{database}",
        BIND_ADDRESS=f"127.0.0.1:{port}",
        LOG_LEVEL="warn",
        **settings,
    )
    process = subprocess.Popen([str(binary)], env=environment)
    for _ in range(100):
        try:
            with urllib.request.urlopen(server + "/healthz") as answer:
                if answer.status == 200:
                    return process, server
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("FAILED: the server did not start")
