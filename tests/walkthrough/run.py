#!/usr/bin/env python3
"""Runs the README's "A whole game with curl" exactly as written (issue 11): every ```sh block
of that section, in order, in one bash session, against a fresh server on a free port, and
checks that the match reached its end and verified.

    python3 tests/walkthrough/run.py target/debug/kings-corner

The README's own `S=${S:-…}` takes the server's address from the environment; its
`cargo run -q -- verify` is answered by a stand-in `cargo` on the PATH that runs the binary under
test (building again inside a test would only be slower). Needs bash, curl and jq.
"""

import os
import re
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

README = Path(__file__).resolve().parent.parent.parent / "README.md"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "support"))
import local_server  # noqa: E402

SECTION = "## A whole game with curl"


def fail(message):
    raise SystemExit(f"FAILED: {message}")


def blocks():
    text = README.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start : end if end >= 0 else len(text)]
    found = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    if len(found) < 5:
        fail(f"the walkthrough has {len(found)} shell blocks")
    return found


def main():
    binary = str(Path(sys.argv[1]).resolve())
    script = "set -euo pipefail\n" + "\n".join(blocks())
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        shim = work / "bin" / "cargo"
        shim.parent.mkdir()
        shim.write_text(f'#!/bin/sh\n[ "$1 $2 $3" = "run -q --" ] || exit 64\nshift 3\nexec "{binary}" "$@"\n')
        shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
        process, server = local_server.start(binary, work / "walkthrough.db")
        try:
            result = subprocess.run(
                ["bash", "-c", script],
                cwd=work,
                env=dict(os.environ, S=server, PATH=f"{shim.parent}:{os.environ['PATH']}"),
                capture_output=True,
                text=True,
                timeout=600,
            )
        finally:
            process.terminate()
            process.wait()
    print(result.stdout.strip())
    if result.returncode != 0:
        fail(f"the walkthrough stopped (exit {result.returncode}):\n{result.stderr}")
    if '"status":"finished"' not in result.stdout or "ok: match" not in result.stdout:
        fail("the walkthrough did not reach a verified end")
    print("the README's walkthrough played a match to its verified end")


if __name__ == "__main__":
    main()
