#!/usr/bin/env python3
"""`kc` from a shell, as docs/kc.md shows it (issue 41), against a fresh server:

1. the session of docs/kc.md, command by command: each must succeed, and the document must
   show exactly these commands (`--write` puts this run's transcript, outputs and all, into
   docs/kc.md between its markers);
2. the document's ten-line shell bot, taken from docs/kc.md as written, run once for each of two
   accounts: the two copies play a whole match against each other with nothing but
   `kc wait --json`, `kc legal --json` and kc's moves, and `kc verify` accepts its export.

    python3 tests/kc/run.py target/debug/kings-corner [--write]

`kc` is the binary beside the server's. Needs bash and jq (the bot's JSON).
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DOC = ROOT / "docs" / "kc.md"
sys.path.insert(0, str(ROOT / "tests" / "support"))
import local_server  # noqa: E402

BEGIN = "<!-- session: made by tests/kc/run.py --write -->"
END = "<!-- end of session -->"

# The session: (what is typed, stdin). `$M` is the match the session made.
SESSION = [
    ("kc register maya", "correct horse battery\n"),
    ("kc new --preset night-one --bot basic", ""),
    ("kc matches", ""),
    ("kc show $M", ""),
    ("kc legal $M", ""),
    ("kc $FIRST", ""),
    # The first legal action may end the turn (`end`): the bot then plays before the hint.
    ("kc wait $M", ""),
    ("kc hint $M", ""),
    ("kc resign $M", ""),
    ("kc export $M > match.json", ""),
    ("kc verify match.json", ""),
]


def fail(message):
    raise SystemExit(f"FAILED: {message}")


def shell(command, env, cwd, stdin=""):
    return subprocess.run(
        ["bash", "-c", command], env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120
    )


def session(env, cwd):
    """Runs the session; its transcript (what was typed and what kc printed)."""
    transcript = []
    names = {}
    for typed, stdin in SESSION:
        command = typed
        for name, value in names.items():
            command = command.replace(name, value)
        ran = shell(command, env, cwd, stdin)
        if ran.returncode != 0:
            fail(f"`{command}` exited {ran.returncode}: {ran.stderr}")
        transcript.append(f"$ {command}\n{ran.stdout}{ran.stderr if 'verify' in typed else ''}")
        if typed.startswith("kc new"):
            names["$M"] = re.search(r"Created (\S+) ", ran.stdout).group(1)
        if typed.startswith("kc legal"):
            # The first legal action, in the words that play it: `play 7H N` → `kc play M 7H N`.
            words = ran.stdout.splitlines()[0].split(" ")
            names["$FIRST"] = " ".join([words[0], names["$M"], *words[1:]])
    return "".join(transcript)


def documented_commands():
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        fail(f"docs/kc.md lacks its session markers ({BEGIN})")
    block = text[text.index(BEGIN) : text.index(END)]
    return [line[2:] for line in block.splitlines() if line.startswith("$ ")]


def check_or_write(transcript, write):
    ran = [line[2:] for line in transcript.splitlines() if line.startswith("$ ")]
    if write:
        text = DOC.read_text()
        start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
        DOC.write_text(text[:start] + "\n```console\n" + transcript + "```\n" + text[end:])
        print("docs/kc.md: the session written")
        return
    # Ids and cards differ from run to run: the commands, with those taken out, must not.
    def shape(command):
        command = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "M", command)
        return re.sub(r"^kc (play|move|draw|end)\b.*", "kc FIRST", command)

    documented = [shape(command) for command in documented_commands()]
    if documented != [shape(command) for command in ran]:
        fail(f"docs/kc.md's session is not the one this test runs: {documented} against {ran}")


def bot_script():
    text = DOC.read_text()
    section = text[text.index("## A bot in ten lines") :]
    found = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    if not found:
        fail("docs/kc.md has no bot")
    script = found.group(1)
    lines = [line for line in script.splitlines() if line.strip()]
    if len(lines) > 12:
        fail(f"the ten-line bot has {len(lines)} lines")
    return script


def main():
    binary = Path(sys.argv[1]).resolve()
    write = "--write" in sys.argv[2:]
    kc_dir = binary.parent
    if not (kc_dir / "kc").exists():
        fail(f"no kc beside {binary}")
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        process, server = local_server.start(binary, work / "kc.db")
        try:
            def env_for(name):
                home = work / name
                home.mkdir()
                return dict(os.environ, KC_SERVER=server, XDG_CONFIG_HOME=str(home),
                            PATH=f"{kc_dir}:{os.environ['PATH']}")

            transcript = session(env_for("maya"), work)
            check_or_write(transcript, write)
            print("the documented session ran: " + ", ".join(typed for typed, _ in SESSION))

            bot = work / "bot.sh"
            bot.write_text(bot_script())
            ann, bob = env_for("ann"), env_for("bob")
            for env, name in [(ann, "ann"), (bob, "bob")]:
                ran = shell(f"kc register {name}", env, work, "correct horse battery\n")
                if ran.returncode != 0:
                    fail(ran.stderr)
            made = shell("kc new --preset night-one --seats 2 --json | jq -r .id", ann, work)
            match = made.stdout.strip()
            joined = shell(f"kc join {shlex.quote(match)}", bob, work)
            if made.returncode != 0 or joined.returncode != 0:
                fail(made.stderr + joined.stderr)
            bots = [
                subprocess.Popen(["sh", str(bot)], env=env, cwd=work, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
                for env in (ann, bob)
            ]
            started = time.monotonic()
            status = None
            try:
                while time.monotonic() - started < 300:
                    shown = shell(f"kc show {match} --json | jq -r .status", ann, work)
                    status = shown.stdout.strip()
                    if status == "finished":
                        break
                    if any(bot.poll() is not None for bot in bots):
                        fail("a bot stopped: " + "".join(bot.stderr.read() for bot in bots if bot.poll() is not None))
                    time.sleep(0.5)
            finally:
                for running in bots:
                    os.killpg(running.pid, 15)
                    running.wait()
            if status != "finished":
                fail(f"the two shell bots did not finish their match in 300 s (status {status})")
            verified = shell(f"kc export {match} > bots.json && kc verify bots.json", ann, work)
            if verified.returncode != 0:
                fail(f"the bots' match does not verify: {verified.stdout}{verified.stderr}")
            seconds = time.monotonic() - started
            print(f"two copies of docs/kc.md's shell bot played match {match} to its end in {seconds:.1f} s; it verifies")
        finally:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
