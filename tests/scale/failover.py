"""A PostgreSQL failover under load, on one machine (issue 35, finding 10).

It starts what a highly available deployment runs, from Debian's packages (installed when
missing): etcd, two PostgreSQL nodes managed by Patroni in synchronous replication
(`synchronous_mode: true`, `use_pg_rewind: true`), HAProxy routing PostgreSQL connections to
whichever node Patroni's REST API calls the leader (`GET /primary`), two server processes
whose pools and `LISTEN` connect through that HAProxy, and HAProxy again in front of the two
servers for the clients. Then the load of tests/scale/deployment.py (people against people,
against bots, clocks that forfeit and stand in, webhooks to a local receiver, every move with an
`Idempotency-Key` retried until a definite answer) plus rated tables, and meanwhile:

1. the leader's node dies: `kill -9` of its postmaster and of its Patroni (a node lost, not a
   PostgreSQL crash Patroni would restart in place);
2. the standby is promoted by Patroni once the leader's key expires, and the servers reconnect
   through HAProxy by themselves;
3. the old leader's Patroni is started again and rejoins as a standby by `pg_rewind`;
4. a switchover through Patroni's REST API hands the leadership back to it, under load.

Then, with everything up, it checks as deployment.py does (every acknowledged move in its log,
nothing stranded, every finished match's export verifies, every notification delivered to its
webhook, nothing done twice), and also that every finished rated match has its rating changes
and `kings-corner ratings rebuild` reproduces every stored rating. It prints the outage the
clients saw: how long each request that met the failover waited for its definite answer (p50,
p99, most). It exits non-zero on any loss.

    cargo build && python3 tests/scale/failover.py                   # the short form (CI)
    python3 tests/scale/failover.py --seconds 300 --matches 100      # a longer one

It needs root (Patroni and PostgreSQL run as `postgres`) and removes everything it made when it
ends. It touches no other cluster: its nodes are initialised by Patroni in a directory of its own
on ports of their own.
"""

import argparse
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import deployment  # noqa: E402
from deployment import (  # noqa: E402
    Ledger,
    Receiver,
    free_port,
    install,
    log,
    port_open,
    request,
    wait_until,
)

ROOT = Path(__file__).resolve().parents[2]
SCOPE = "kc-failover"


# --- The highly available database -----------------------------------------------------------


class Etcd:
    """One etcd member on loopback: Patroni's store of who leads."""

    def __init__(self, workdir):
        self.client_port, peer_port = free_port(), free_port()
        data = workdir / "etcd"
        self.log = open(workdir / "etcd.log", "ab")
        self.process = subprocess.Popen(
            [
                "etcd", "--name", "kc", "--data-dir", str(data),
                "--listen-client-urls", f"http://127.0.0.1:{self.client_port}",
                "--advertise-client-urls", f"http://127.0.0.1:{self.client_port}",
                "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
                "--initial-cluster", f"kc=http://127.0.0.1:{peer_port}",
            ],
            stdout=self.log, stderr=self.log,
        )
        atexit.register(self.process.kill)
        wait_until("etcd", lambda: port_open(self.client_port))


class Node:
    """One PostgreSQL node and the Patroni that manages it, both run as `postgres`."""

    def __init__(self, name, workdir, etcd, bin_dir):
        self.name = name
        self.dir = workdir / name
        self.dir.mkdir()
        shutil.chown(self.dir, "postgres")
        self.pg_port, self.rest_port = free_port(), free_port()
        self.config = self.dir / "patroni.yml"
        # JSON is YAML: the settings below are the whole of what Patroni is told.
        settings = {
            "scope": SCOPE,
            "name": name,
            "log": {"level": "INFO"},
            "restapi": {"listen": f"127.0.0.1:{self.rest_port}",
                        "connect_address": f"127.0.0.1:{self.rest_port}"},
            "etcd3": {"hosts": f"127.0.0.1:{etcd.client_port}"},
            "bootstrap": {
                "dcs": {
                    # The leader's key lives 10 s without renewal: the longest a dead leader
                    # holds the cluster (loop_wait + 2 × retry_timeout must stay below it).
                    "ttl": 10,
                    "loop_wait": 1,
                    "retry_timeout": 4,
                    "maximum_lag_on_failover": 0,
                    # A commit is acknowledged only once the synchronous standby has it, so a
                    # promoted standby holds every acknowledged write.
                    "synchronous_mode": True,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "use_slots": True,
                        "parameters": {
                            "max_connections": 200,
                            "wal_level": "replica",
                            "hot_standby": "on",
                            "wal_log_hints": "on",
                            "max_wal_senders": 10,
                            "max_replication_slots": 10,
                            "wal_keep_size": "256MB",
                        },
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"auth": "trust"}],
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{self.pg_port}",
                "connect_address": f"127.0.0.1:{self.pg_port}",
                "data_dir": str(self.dir / "data"),
                "bin_dir": bin_dir,
                "pgpass": str(self.dir / "pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres"},
                    "replication": {"username": "postgres"},
                    "rewind": {"username": "postgres"},
                },
                "parameters": {"unix_socket_directories": str(self.dir)},
            },
        }
        self.config.write_text(json.dumps(settings, indent=2))
        shutil.chown(self.config, "postgres")
        self.log_path = self.dir / "patroni.log"
        self.process = None
        self.start()
        atexit.register(self.kill)

    def start(self):
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(["patroni", str(self.config)], user="postgres",
                                        stdout=self.log, stderr=self.log)

    def rest(self, path):
        """The status of Patroni's REST API at `path` (0: no answer)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.rest_port}{path}", timeout=2) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            return 0

    def is_leader(self):
        return self.rest("/primary") == 200

    def is_sync_standby(self):
        return self.rest("/sync") == 200

    def postmaster_pid(self):
        try:
            return int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def die(self):
        """The node is lost: Patroni and the postmaster killed at once (SIGKILL)."""
        postmaster = self.postmaster_pid()
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        if postmaster:
            try:
                os.kill(postmaster, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def kill(self):
        """At exit: Patroni stopped, and whatever PostgreSQL it left."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        postmaster = self.postmaster_pid()
        if postmaster:
            try:
                os.kill(postmaster, signal.SIGKILL)
            except ProcessLookupError:
                pass


class Balancer(deployment.Balancer):
    """deployment.py's HAProxy in front of the servers, and a PostgreSQL proxy to the node
    whose Patroni answers `/primary` with 200 (the connections to a node marked down cut, so
    that nothing writes to an old leader)."""

    def __init__(self, workdir, nodes, server_ports):
        self.pg_port = free_port()
        databases = "\n".join(
            f"    server {node.name} 127.0.0.1:{node.pg_port} check port {node.rest_port}" for node in nodes
        )
        super().__init__(workdir, server_ports, more=f"""listen postgres
    bind 127.0.0.1:{self.pg_port}
    mode tcp
    # A `LISTEN` connection may be idle for long.
    timeout client 1h
    timeout server 1h
    option httpchk GET /primary
    http-check expect status 200
    default-server inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions
{databases}""")
        wait_until("HAProxy's PostgreSQL proxy", lambda: port_open(self.pg_port))

    def states(self, backend):
        """Each server of `backend` and its state (`UP`, `DOWN`, …), from the runtime API."""
        rows = [line.split(",") for line in self.command("show stat").splitlines()
                if line and not line.startswith("#")]
        return {row[1]: row[17] for row in rows if row[0] == backend and row[1] not in ("FRONTEND", "BACKEND")}


class Leader:
    """`psql` on whichever node leads now, through HAProxy (what deployment.check calls)."""

    def __init__(self, port):
        self.port = port

    def psql(self, database, sql):
        url = f"postgres://postgres@127.0.0.1:{self.port}/{database}"
        return subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-Atqc", sql], check=True,
                              capture_output=True, text=True).stdout.strip()


# --- What the clients saw --------------------------------------------------------------------


class Waits:
    """Every request that met a fault: how long it took to its definite answer."""

    def __init__(self):
        self.lock = threading.Lock()
        self.delayed = []  # (when it was answered, seconds it took), for requests retried
        self.requests = 0
        self.tries = threading.local()  # attempts of this thread's request under way

    def wrap(self, definite, attempt):
        """`definite` timed, counting the `attempt`s it makes (deployment.py's `request`)."""

        def counted(*arguments, **keywords):
            self.tries.count = getattr(self.tries, "count", 0) + 1
            return attempt(*arguments, **keywords)

        def timed(*arguments, **keywords):
            self.tries.count = 0
            started = time.monotonic()
            answer = definite(*arguments, **keywords)
            took = time.monotonic() - started
            with self.lock:
                self.requests += 1
                if self.tries.count > 1:
                    self.delayed.append((time.monotonic(), took))
            return answer

        return timed, counted

    def by_fault(self, faults):
        """The waits of the delayed requests, each under the last fault begun before it was
        answered: {fault: sorted seconds}."""
        spans = {name: [] for name, _ in faults}
        with self.lock:
            delayed = list(self.delayed)
        for answered, took in delayed:
            began = [name for name, at in faults if at <= answered]
            if began:
                spans[began[-1]].append(took)
        return {name: sorted(waits) for name, waits in spans.items()}


# --- The faults ------------------------------------------------------------------------------


def wait_for(what, check, seconds):
    """Seconds until `check()` holds; raises SystemExit after `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if check():
            return time.monotonic() - started
        time.sleep(0.2)
    raise SystemExit(f"FAILED: {what} did not happen within {seconds} s")


def faults(nodes, warm_up, events, moments, failures, done):
    """Failover, rejoin by pg_rewind, and switchover back, each waited for. `moments` gets
    (fault, when it began) for the outage figures."""
    started = time.monotonic()
    at = lambda: f"{time.monotonic() - started:.0f} s"  # noqa: E731
    try:
        time.sleep(warm_up)
        old = next(node for node in nodes if node.is_leader())
        new = next(node for node in nodes if node is not old)
        if not new.is_sync_standby():
            raise SystemExit(f"FAILED: {new.name} is not the synchronous standby before the kill")
        moments.append(("failover", time.monotonic()))
        old.die()
        events.append(f"{at()}: leader {old.name} lost (Patroni and postmaster killed with SIGKILL)")
        took = wait_for(f"{new.name}'s promotion", new.is_leader, 60)
        events.append(f"{at()}: {new.name} promoted, {took:.1f} s after the kill")
        time.sleep(5)
        old.start()
        took = wait_for(f"{old.name} rejoining as the synchronous standby", old.is_sync_standby, 120)
        rewound = "pg_rewind exit code=0" in old.log_path.read_text(errors="replace")
        events.append(f"{at()}: {old.name} rejoined as the synchronous standby in {took:.1f} s "
                      f"({'by pg_rewind' if rewound else 'without a rewind'})")
        if not rewound:
            failures.append(f"{old.name} rejoined without pg_rewind")
        time.sleep(5)
        moments.append(("switchover", time.monotonic()))
        switching = time.monotonic()
        body = json.dumps({"leader": new.name, "candidate": old.name}).encode()
        switch = urllib.request.Request(f"http://127.0.0.1:{new.rest_port}/switchover", data=body, method="POST",
                                        headers={"content-type": "application/json"})
        with urllib.request.urlopen(switch, timeout=60) as answer:
            said = answer.read().decode(errors="replace").strip()
        wait_for(f"the switchover to {old.name}", old.is_leader, 60)
        took = time.monotonic() - switching
        events.append(f"{at()}: switchover back to {old.name} in {took:.1f} s ({said})")
        wait_for(f"{new.name} following as the synchronous standby", new.is_sync_standby, 120)
        events.append(f"{at()}: {new.name} is the synchronous standby again")
    except BaseException as failure:  # noqa: BLE001 (SystemExit included: it is a finding)
        failures.append(f"faults: {failure}")
    finally:
        done.set()


# --- Ratings ---------------------------------------------------------------------------------


def check_ratings(leader, binary, ledger, database_url):
    """Every finished rated match has one rating change per seat, and the rebuild agrees."""
    failures = []
    rated = [match_id for match_id, (kind, _) in ledger.matches.items() if kind == "rated"]
    if not rated:
        return 0, ["no rated match was played"]
    ids = ",".join(f"'{match_id}'" for match_id in rated)
    finished = set(leader.psql("kc", f"SELECT id FROM matches WHERE id IN ({ids}) AND status = 'finished'").split())
    changed = leader.psql(
        "kc", f"SELECT match_id, count(*) FROM rating_changes WHERE match_id IN ({ids}) GROUP BY match_id"
    )
    counts = dict(line.split("|") for line in changed.splitlines() if line)
    for match_id in finished:
        # A rated match ended before each seat took a turn of its own is unrated by rule
        # (docs/ratings.md); the rebuild below judges those.
        if counts.get(match_id) not in (None, "2"):
            failures.append(f"rated match {match_id} has {counts.get(match_id)} rating changes")
    rebuilt = subprocess.run([str(binary), "ratings", "rebuild"], capture_output=True, text=True,
                             env=dict(os.environ, DATABASE_URL=database_url, LOG_LEVEL="warn"))
    if rebuilt.returncode != 0 or not rebuilt.stdout.startswith("ok:"):
        failures.append(f"ratings rebuild: {rebuilt.stdout.strip()} {rebuilt.stderr.strip()}")
    return len([m for m in finished if counts.get(m) == "2"]), failures


def percentile(values, share):
    return values[min(len(values) - 1, int(len(values) * share))] if values else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=60,
                        help="the least time the load lasts (the faults are waited for)")
    parser.add_argument("--matches", type=int, default=24, help="matches at once")
    parser.add_argument("--binary", type=Path, default=ROOT / "target" / "debug" / "kings-corner")
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root: Patroni and PostgreSQL run as postgres")
    install("patroni", "etcd-server", "haproxy", commands={"etcd-server": "etcd"})
    binary = arguments.binary.resolve()
    versions = sorted(os.listdir("/usr/lib/postgresql"), key=lambda v: [int(x) for x in v.split(".")])
    bin_dir = f"/usr/lib/postgresql/{versions[-1]}/bin"
    # Under /tmp, not the caller's directory: PostgreSQL runs as postgres, who must enter it.
    workdir = Path(tempfile.mkdtemp(prefix="kc-failover-"))
    os.chmod(workdir, 0o755)
    if not os.environ.get("KEEP_WORKDIR"):
        atexit.register(shutil.rmtree, workdir, True)
    log(f"work directory {workdir}")

    etcd = Etcd(workdir)
    nodes = [Node(name, workdir, etcd, bin_dir) for name in ("pg0", "pg1")]
    wait_for("a leader", lambda: any(node.is_leader() for node in nodes), 90)
    wait_for("the synchronous standby", lambda: any(node.is_sync_standby() for node in nodes), 120)
    server_ports = [free_port(), free_port()]
    balancer = Balancer(workdir, nodes, server_ports)
    # HAProxy starts with every server up: until its checks mark the standby down, a
    # connection may land there (and be refused every write).
    wait_for("HAProxy's checks", lambda: sorted(balancer.states("postgres").values()) == ["DOWN", "UP"], 30)
    leader = Leader(balancer.pg_port)
    wait_for("PostgreSQL through HAProxy", lambda: subprocess.run(
        ["pg_isready", "-h", "127.0.0.1", "-p", str(balancer.pg_port)], capture_output=True).returncode == 0, 30)
    leader.psql("postgres", "CREATE DATABASE kc")
    database_url = f"postgres://postgres@127.0.0.1:{balancer.pg_port}/kc"
    subprocess.run([str(binary), "migrate"], env=dict(os.environ, DATABASE_URL=database_url, LOG_LEVEL="warn"),
                   check=True)
    # A request waits at most this long for a connection, and a statement at most this long,
    # before the client hears 503 and retries (docs/operations.md, "A primary and a synchronous standby").
    database = {"DATABASE_URL": database_url, "DATABASE_TIMEOUT_SECONDS": "5", "STATEMENT_TIMEOUT_SECONDS": "5"}
    servers = [deployment.Server(index, binary, workdir, database, "127.0.0.1/32", port=port)
               for index, port in enumerate(server_ports)]
    wait_for("the servers behind HAProxy", lambda: request(balancer.port, "GET", "/readyz")[0] == 200, 30)
    log(f"etcd :{etcd.client_port}; {', '.join(f'{n.name} :{n.pg_port} (REST :{n.rest_port})' for n in nodes)}; "
        f"HAProxy :{balancer.pg_port} (PostgreSQL) :{balancer.port} (API); servers "
        f"{', '.join(':' + str(s.port) for s in servers)}")

    # The load of deployment.py, with rated tables among its kinds.
    waits = Waits()
    deployment.definite, deployment.request = waits.wrap(deployment.definite, deployment.request)
    deployment.KINDS = deployment.KINDS + ["rated"]
    receiver = Receiver()
    ledger = Ledger()
    stop = threading.Event()
    tables = deployment.seat_tables(balancer.port, receiver.port, ledger, arguments.matches, stop)
    log(f"{arguments.matches} tables seated; the leader is lost in 10 s")
    events, moments, fault_failures, done = [], [], [], threading.Event()
    started = time.monotonic()
    threading.Thread(target=faults, args=(nodes, 10, events, moments, fault_failures, done), daemon=True).start()
    done.wait()
    # The load goes on for a while on the last leader, then at least until --seconds.
    time.sleep(max(10, arguments.seconds - (time.monotonic() - started)))
    stop.set()
    for thread in tables:
        thread.join(timeout=150)
    for line in events:
        log(line)
    log("load over; checking with every node and process up")

    figures, failures = deployment.check(leader, binary, ledger, receiver, workdir)
    rated, rating_failures = check_ratings(leader, binary, ledger, database_url)
    failures = ledger.failures + fault_failures + failures + rating_failures
    # A 500 is a bug, whatever the database did meanwhile: an outage answers 503.
    for server in servers:
        errors = server.log_path.read_text(errors="replace").count("answered with a server error")
        if errors:
            failures.append(f"server {server.index} answered {errors} requests with a 500")
    figures.update({
        "rated matches finished with their rating changes": rated,
        "requests": waits.requests,
    })
    for fault, delayed in waits.by_fault(moments).items():
        figures[f"{fault}: requests delayed, their wait for a definite answer (p50, p99, most)"] = (
            f"{len(delayed)}: {percentile(delayed, 0.5):.1f} s, {percentile(delayed, 0.99):.1f} s, "
            f"{(delayed or [0.0])[-1]:.1f} s"
        )
    for name, value in figures.items():
        print(f"  {name}: {value}")
    for server in servers:
        server.stop()
    if failures or len(events) < 4:
        for failure in failures:
            print(f"FAILED: {failure}")
        sys.exit(1)
    print("ok: a failover, a rejoin by pg_rewind and a switchover lost nothing acknowledged")


if __name__ == "__main__":
    main()
