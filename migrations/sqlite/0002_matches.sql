-- Matches and their event logs.

-- One row per match: its fixed setup and the read model kept current with its log
-- (status, version, whose turn and since when), updated in the same transaction as the log.
CREATE TABLE matches (
    id              TEXT PRIMARY KEY,          -- UUID v4
    created_by      TEXT NOT NULL REFERENCES accounts (id),
    visibility      TEXT NOT NULL,             -- 'public' or 'private'
    invite_code     TEXT,                      -- private matches only
    rules           TEXT NOT NULL,             -- JSON of the validated rules
    seats           BIGINT NOT NULL,
    auto_end_turn   BIGINT NOT NULL,          -- 1: the server ends turns whose only legal action is end_turn
    status          TEXT NOT NULL,             -- 'open', 'playing' or 'finished'
    version         BIGINT NOT NULL,           -- number of events in the log
    commitment      TEXT NOT NULL,             -- hex SHA-256 of the secret, published at creation
    shuffle_version BIGINT NOT NULL,
    turn_seat        BIGINT,                   -- whose turn, while playing
    turn_since      BIGINT,                    -- when that turn began (the inbox's order)
    winners         TEXT,                      -- JSON array, once finished
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX matches_lobby ON matches (status, visibility, created_at);

-- The shuffle secret lives apart from the log and is served only once the match is finished.
CREATE TABLE match_secrets (
    match_id TEXT PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    secret   TEXT NOT NULL                     -- hex of 32 bytes from the OS's CSPRNG
);

-- Who sits where. Seats are filled from 0; the match starts when every seat is taken.
CREATE TABLE match_seats (
    match_id    TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat        BIGINT NOT NULL,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    client_seed TEXT NOT NULL,                 -- '' when the player gave none
    joined_at   BIGINT NOT NULL,
    PRIMARY KEY (match_id, seat),
    UNIQUE (match_id, account_id)
);
CREATE INDEX match_seats_account ON match_seats (account_id);

-- The append-only log. The primary key decides races: two writers of the same seq cannot both
-- commit. hash = SHA-256(previous hash ‖ event bytes), so any edit breaks every later hash.
CREATE TABLE match_events (
    match_id   TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,                -- 1-based; the match's version after this event
    event      TEXT NOT NULL,                  -- the engine's event, canonical JSON
    hash       TEXT NOT NULL,                  -- hex
    created_at BIGINT NOT NULL,
    PRIMARY KEY (match_id, seq)
);

-- Responses to moves sent with an Idempotency-Key, so a retry gets the first answer again.
CREATE TABLE idempotency_keys (
    account_id    TEXT NOT NULL,
    match_id      TEXT NOT NULL,
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL,               -- hex SHA-256 of the request body
    status        BIGINT NOT NULL,
    response      TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    PRIMARY KEY (account_id, match_id, key)
);
