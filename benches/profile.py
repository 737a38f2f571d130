"""Flame graphs of the server under the bench's loads (issue 19), and who spends the CPU.

Runs `cargo bench --bench server` built with line tables, and while it runs records with
`perf` (Debian's `linux-perf`, installed when missing):

- the bench process (server and load generator: they share it) during the move phase and
  during the view phase, with call stacks, folded and drawn by the `inferno` crate's tools
  (installed at a pinned version when missing) into `OUT/moves.svg` and `OUT/views.svg`, and
  the same during the move phase on SQLite into `OUT/sqlite-moves.svg`;
- the whole machine during the move phase, without stacks, to say how the CPU divides between
  the server's threads, the load generator's, PostgreSQL and the rest (`OUT/moves-split.txt`).

The folded stacks are kept beside the graphs (`*.folded`) so that they can be grepped and
compared (`inferno-diff-folded`). Needs root (perf on other processes), PostgreSQL as the
bench needs it, and a quiet machine.

    sudo python3 benches/profile.py [OUT]        # OUT defaults to target/perf

With `--engine`, the engine instead: `cargo bench --bench engine`'s random hand (`act`) and its
checked replay, each recorded for 10 s with DWARF call stacks (the engine is plain synchronous
code, shallow enough for them; no special build), into `OUT/engine-hand.svg` and
`OUT/engine-replay.svg`. `--binary PATH` records an engine bench binary built elsewhere (an
older commit's, to compare):

    sudo python3 benches/profile.py --engine [--binary PATH] [OUT]
"""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INFERNO_VERSION = "0.12.3"
FREQUENCY = "499"


def tool(name, install):
    found = shutil.which(name) or shutil.which(name, path=str(Path.home() / ".cargo/bin"))
    if found:
        return found
    print(f"installing {name}", flush=True)
    subprocess.run(install, check=True)
    return shutil.which(name) or shutil.which(name, path=str(Path.home() / ".cargo/bin"))


# The bench's phases recorded: each graph's name, the prefix of the bench's lines about it,
# what its first line says (recording starts) and its last (recording stops), and a title.
PHASES = [
    ("moves", "moves: ", "playing for", "accepted",
     "kings-corner bench: 64 matches playing (server and load generator)"),
    ("views", "views: ", "GET /view for", "requests/s",
     "kings-corner bench: GET /view at 64 clients (server and load generator)"),
    ("sqlite-moves", "sqlite moves: ", "playing for", "accepted",
     "kings-corner bench: 64 matches playing on SQLite (server and load generator)"),
]


def bench_binary():
    # Frame pointers give perf whole stacks at little cost (DWARF unwinding of 16 KB stack
    # copies cut async stacks short and cost a sixth of the CPU); line tables name the frames.
    # A target directory of its own keeps the usual builds warm.
    return built_bench("server", dict(os.environ, CARGO_PROFILE_BENCH_DEBUG="line-tables-only",
                                      RUSTFLAGS="-C force-frame-pointers=yes",
                                      CARGO_TARGET_DIR=str(ROOT / "target/profiling")))


def built_bench(name, env=None):
    """Builds bench `name` (`cargo bench --no-run`) and gives its executable."""
    built = subprocess.run(
        ["cargo", "bench", "--bench", name, "--no-run", "--message-format", "json"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    for line in built.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == name \
                and message.get("executable"):
            return message["executable"]
    raise SystemExit(f"the {name} bench was not built")


def record(perf, arguments, output):
    return subprocess.Popen([perf, "record", "-F", FREQUENCY, "-o", str(output), *arguments],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop(recorder):
    recorder.send_signal(signal.SIGINT)
    recorder.wait()


def shorten(frame):
    """A frame without its generic arguments (`serialize<…>`), at most 100 characters: async
    Rust names run to kilobytes, and the path is what a reader of the graph needs."""
    out, depth = [], 0
    for ch in frame:
        if ch == "<":
            depth += 1
            if depth == 1:
                out.append("<…")
        elif ch == ">" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(">")
        elif depth == 0:
            out.append(ch)
    return "".join(out)[:100]


def fold(text):
    """Folded stacks (`a;b;c N`) with shortened frames, equal stacks merged."""
    merged = {}
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        key = ";".join(shorten(frame) for frame in stack.split(";"))
        merged[key] = merged.get(key, 0) + int(count)
    return "".join(f"{stack} {count}\n" for stack, count in merged.items())


def flame(perf, data, folded, svg, title):
    script = subprocess.run([perf, "script", "-i", str(data)], capture_output=True, check=True)
    collapsed = subprocess.run([shutil.which("inferno-collapse-perf") or "inferno-collapse-perf"],
                               input=script.stdout, capture_output=True, check=True)
    folded.write_text(fold(collapsed.stdout.decode()))
    draw(folded, svg, title)


def draw(folded, svg, title):
    """The graph, frames under 2 pixels left out (it stays about a megabyte)."""
    with open(folded, "rb") as stacks, open(svg, "wb") as out:
        subprocess.run([shutil.which("inferno-flamegraph") or "inferno-flamegraph",
                        "--title", title, "--width", "1600", "--minwidth", "2"],
                       stdin=stacks, stdout=out, check=True)


def split(perf, data, out):
    report = subprocess.run(
        [perf, "report", "-i", str(data), "--stdio", "--sort", "comm", "--percent-limit", "0.5"],
        capture_output=True, text=True, check=True)
    lines = [line for line in report.stdout.splitlines() if line and not line.startswith("#")]
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


def profile_engine(perf, binary, out):
    print(f"engine bench: {binary}", flush=True)
    for name, bench, title in [
        ("engine-hand", "random_hand/standard_4_players$",
         "kings-corner engine: random 4-player standard hands (act)"),
        ("engine-replay", "replay/", "kings-corner engine: checked replay of a 1,815-event match"),
    ]:
        data = out / f"{name}.data"
        subprocess.run([perf, "record", "-F", FREQUENCY, "--call-graph", "dwarf,16384",
                        "-o", str(data), binary, "--bench", "--profile-time", "10", bench],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        flame(perf, data, out / f"{name}.folded", out / f"{name}.svg", title)
    print(f"written: {out}/engine-hand.svg, engine-replay.svg", flush=True)


def main():
    arguments = sys.argv[1:]
    engine = "--engine" in arguments
    given = None
    if "--binary" in arguments:
        at = arguments.index("--binary")
        given = arguments[at + 1]
        del arguments[at:at + 2]
    arguments = [argument for argument in arguments if argument != "--engine"]
    out = Path(arguments[0]) if arguments else ROOT / "target/perf"
    out.mkdir(parents=True, exist_ok=True)
    perf = tool("perf", ["apt-get", "install", "-y", "linux-perf"])
    tool("inferno-flamegraph",
         ["cargo", "install", "inferno", "--locked", "--version", INFERNO_VERSION])
    if engine:
        profile_engine(perf, given or built_bench("engine"), out)
        return
    binary = bench_binary()
    print(f"bench: {binary}", flush=True)
    bench = subprocess.Popen([binary, "--bench"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    recording = []
    for line in bench.stdout:
        print(line, end="", flush=True)
        for name, prefix, first, last, _ in PHASES:
            if line.startswith(prefix) and first in line:
                recording = [(name, record(perf, ["--call-graph", "fp", "-p", str(bench.pid)],
                                           out / f"{name}.data"))]
                if name == "moves":
                    recording.append(("moves-split",
                                      record(perf, ["-a"], out / "moves-split.data")))
            elif line.startswith(prefix) and last in line:
                for _, recorder in recording:
                    stop(recorder)
                recording = []
    if bench.wait() != 0:
        raise SystemExit("the bench failed")
    split(perf, out / "moves-split.data", out / "moves-split.txt")
    for name, _, _, _, title in PHASES:
        flame(perf, out / f"{name}.data", out / f"{name}.folded", out / f"{name}.svg", title)
    graphs = ", ".join(f"{name}.svg" for name, *_ in PHASES)
    print(f"written: {out}/{graphs}, moves-split.txt", flush=True)


if __name__ == "__main__":
    main()
