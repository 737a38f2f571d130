# Multi-stage build: compile in the Rust image, run from a slim Debian with only the binary.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin kings-corner

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data kings && mkdir -p /data && chown kings /data
COPY --from=build /src/target/release/kings-corner /usr/local/bin/kings-corner
USER kings
WORKDIR /data
ENV BIND_ADDRESS=0.0.0.0:8080 \
    DATABASE_URL=sqlite:///data/kings-corner.db \
    LOG_FORMAT=json
EXPOSE 8080
ENTRYPOINT ["kings-corner"]
CMD ["serve"]
