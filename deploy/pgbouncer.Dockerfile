# PgBouncer from Debian's package, the same 1.18 that tests/scale/deployment.py runs, with its
# configuration mounted by docker-compose.yml (`--profile scale`).
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends pgbouncer \
    && rm -rf /var/lib/apt/lists/*
USER postgres
EXPOSE 6432
CMD ["pgbouncer", "/etc/pgbouncer/pgbouncer.ini"]
