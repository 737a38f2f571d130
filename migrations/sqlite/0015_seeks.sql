-- Quick pairing (issue 21). A seek asks for a table of one kind (a preset, a number of seats,
-- a clock, rated or not); the server seats compatible seeks together in a new match that
-- starts at once (src/matches/seeks.rs). A seek is `open` until it is `matched` (`match_id`
-- names its match), `cancelled` by its seeker or `expired` at `expires_at`; each change is a
-- conditional update from `open`, in the transaction that creates the match for a pairing,
-- so no seek is seated twice however many processes pair.
CREATE TABLE seeks (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    preset       TEXT NOT NULL,
    seats        BIGINT NOT NULL,
    turn_seconds BIGINT,                          -- NULL: no clock
    bank_seconds BIGINT,
    on_timeout   TEXT NOT NULL,
    rated        BIGINT NOT NULL,                 -- 1: a rated table
    rating_min   BIGINT,                          -- the others' shown ratings it accepts
    rating_max   BIGINT,
    bots_after   BIGINT,                          -- seconds: then bots take the empty seats
    bot_level    TEXT,
    status       TEXT NOT NULL,                   -- open, matched, cancelled, expired
    match_id     TEXT REFERENCES matches (id),
    created_at   BIGINT NOT NULL,                 -- Unix seconds
    expires_at   BIGINT NOT NULL,
    ended_at     BIGINT
);
-- The pairing round reads the open seeks, longest waiting first.
CREATE INDEX seeks_open ON seeks (created_at) WHERE status = 'open';
-- An account's own seeks, newest first.
CREATE INDEX seeks_by_account ON seeks (account_id, created_at);
