#!/usr/bin/env bash
# Runs a command with PgBouncer in transaction pooling mode in front of the PostgreSQL server of
# PG_URL_BASE (127.0.0.1:5432 by default), as the load-balanced deployment has it:
#
#     tests/scale/through_pgbouncer.sh cargo test --test api
#
# The command sees DATABASE_URL (the server itself, where the tests create their databases)
# and POOLER_URL (PgBouncer, without a database): tests/api's servers then reach their
# database through PgBouncer with DATABASE_POOLER=transaction, their LISTEN and migrations
# straight to PostgreSQL. PgBouncer (Debian's package, installed when missing) runs as the
# `postgres` user, on a port of its own, and stops when the command ends. Needs root.
set -euo pipefail

PG_URL_BASE="${PG_URL_BASE:-postgres://postgres@127.0.0.1:5432}"
if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null
fi
address="${PG_URL_BASE#*@}"
host="${address%%:*}"
port="${address##*:}"
port="${port%%/*}"
bouncer_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
dir="$(mktemp -d)"
cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$host port=$port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
; sqlx sends it with every connection; PgBouncer refuses startup parameters it does not know.
ignore_startup_parameters = extra_float_digits
max_client_conn = 2000
default_pool_size = 20
; The tests stop and start their databases: try again within a second, not 15.
server_login_retry = 1
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
echo '"postgres" ""' >"$dir/users.txt"
chown -R postgres "$dir"
chmod 755 "$dir"
stop() {
    [ -f "$dir/pgbouncer.pid" ] && kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
    rm -rf "$dir"
}
trap stop EXIT
runuser -u postgres -- /usr/sbin/pgbouncer -d "$dir/pgbouncer.ini"
for _ in $(seq 1 50); do pg_isready -h 127.0.0.1 -p "$bouncer_port" -q && break; sleep 0.1; done
pg_isready -h 127.0.0.1 -p "$bouncer_port" -q || { echo "PgBouncer did not start" >&2; cat "$dir/pgbouncer.log" >&2; exit 1; }
DATABASE_URL="$PG_URL_BASE/postgres" POOLER_URL="postgres://postgres@127.0.0.1:$bouncer_port" "$@"
