"""The server binary on a free local port with its own SQLite file, for the Python-driven
checks (tests/browser, tests/clients, tests/walkthrough). Import it after putting this folder
on `sys.path`.
"""

import json
import os
import socket
import subprocess
import time
import urllib.error
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


def call(server, method, path, token=None, body=None):
    """One request to the API at `server`: its status and JSON body (`None` when empty)."""
    request = urllib.request.Request(server + path, method=method)
    if token:
        request.add_header("authorization", f"Bearer {token}")
    data = None
    if body is not None:
        request.add_header("content-type", "application/json")
        data = json.dumps(body).encode()
    try:
        with urllib.request.urlopen(request, data) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")
