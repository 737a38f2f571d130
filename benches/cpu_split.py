"""Where the CPU goes in the server bench's phases, per accepted move or answered request.

Runs `cargo bench --bench server` (or the bench binary given with --binary) and, from /proc,
counts the CPU seconds each group of threads spent during each phase: the server's request
threads (actix workers), the bench process's tokio threads (the load generator, and the
server's append writer and database connections, which run there too), PostgreSQL's
processes, and the rest of the machine; and the whole machine's busy time from /proc/stat,
which also counts processes that end within the phase (pgbench and its backends). Divided by
the phase's moves or requests, these say what one costs, and what a target would need:

    python3 benches/cpu_split.py                 # builds and runs the bench
    python3 benches/cpu_split.py --binary PATH   # a bench binary built elsewhere

The bench's own output goes to stdout as it comes; the split follows each phase.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")

# Each phase: its name, the bench line it starts at (None: where the previous one ended),
# the line it ends at, and how to read the count of what it did from that line.
PHASES = [
    ("moves, 64 matches", r"^moves: 64 matches seated", r"^moves: (\d+) accepted", "move"),
    ("moves, 10,000 matches", r"^many matches: \d+ matches seated; playing",
     r"^many matches: (\d+) accepted", "move"),
    ("pgbench", r"^many matches: \d+ moves/s with", r"^pgbench: (\d+) single-row", "insert/s"),
    ("HTTP one-row writes", r"^http writes: one row per request", r"^http writes: (\d+) requests/s",
     "request/s"),
    ("GET /view", r"^views: GET /view for", r"^views: (\d+) requests/s", "request/s"),
    ("trivial handler", None, r"trivial actix-web handler: (\d+)/s", "request/s"),
]


def group(command, thread):
    if "postgres" in command or thread.startswith("postgres"):
        return "postgres"
    if Path(command).name.startswith("server-"):
        return "server (actix workers)" if thread.startswith("actix") else "bench tokio threads"
    return "rest"


def snapshot():
    threads = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = open(f"/proc/{pid}/cmdline").read().split("\0")[0]
            for tid in os.listdir(f"/proc/{pid}/task"):
                stat = open(f"/proc/{pid}/task/{tid}/stat").read()
                thread = stat[stat.index("(") + 1:stat.rindex(")")]
                fields = stat[stat.rindex(")") + 2:].split()
                threads[(pid, tid)] = (group(command, thread), int(fields[11]) + int(fields[12]))
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    cpu = [int(value) for value in open("/proc/stat").readline().split()[1:]]
    idle = cpu[3] + cpu[4]
    return threads, sum(cpu) - idle, time.monotonic()


def split(before, after, count, unit):
    threads_before, busy_before, started = before
    threads_after, busy_after, ended = after
    seconds = collections.Counter()
    for key, (name, ticks) in threads_after.items():
        seconds[name] += (ticks - threads_before.get(key, (name, 0))[1]) / TICKS
    wall = ended - started
    busy = (busy_after - busy_before) / TICKS
    done = count * wall if unit.endswith("/s") else count
    lines = [f"  wall {wall:.1f} s, machine busy {busy:.1f} CPU-s: "
             f"{busy / done * 1e6:.0f} µs per {unit.removesuffix('/s')}"]
    for name, spent in seconds.most_common():
        lines.append(f"  {name}: {spent:.2f} CPU-s, {spent / done * 1e6:.0f} µs each")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary")
    arguments = parser.parse_args()
    command = [arguments.binary, "--bench"] if arguments.binary else \
        ["cargo", "bench", "--bench", "server"]
    bench = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, bufsize=1)
    phases = iter(PHASES)
    phase = next(phases)
    before = None
    for line in bench.stdout:
        sys.stdout.write(line)
        if phase is None:
            continue
        name, start, end, unit = phase
        if before is None and start and re.search(start, line):
            before = snapshot()
            continue
        found = re.search(end, line)
        if before is not None and found:
            print(f"CPU split, {name}:\n{split(before, snapshot(), int(found.group(1)), unit)}",
                  flush=True)
            phase = next(phases, None)
            # A phase without a start line begins where this one ended.
            before = snapshot() if phase and phase[1] is None else None
    sys.exit(bench.wait())


if __name__ == "__main__":
    main()
