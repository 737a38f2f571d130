-- One row that /readyz writes: on SQLite a server is ready only while it can write (a full disk
-- or an unwritable file still lets reads through).
CREATE TABLE readiness_probe (
    id         BIGINT PRIMARY KEY,
    checked_at BIGINT NOT NULL               -- Unix seconds of the last successful probe
);
