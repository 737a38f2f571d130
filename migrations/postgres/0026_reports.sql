-- Reports (issue 39; docs/community.md, "Reporting"): an account tells the operators about an
-- account, a match, or one message of table talk (by its event number). A report is `open`
-- until an operator resolves it with an outcome.
CREATE TABLE reports (
    id          TEXT PRIMARY KEY,
    reporter_id TEXT NOT NULL REFERENCES accounts (id),
    about       TEXT NOT NULL,                    -- account, match, message
    account_id  TEXT REFERENCES accounts (id),    -- the account reported, or the speaker
    match_id    TEXT REFERENCES matches (id) ON DELETE CASCADE,
    seq         BIGINT,                           -- a message's event number
    reason      TEXT NOT NULL,
    note        TEXT NOT NULL,
    status      TEXT NOT NULL,                    -- open, resolved
    outcome     TEXT,                             -- set when resolved
    created_at  BIGINT NOT NULL,                  -- Unix seconds
    resolved_at BIGINT
);
-- A reporter's own reports, newest first, and how many it made of late (the rate limit).
CREATE INDEX reports_by_reporter ON reports (reporter_id, created_at);
-- The operators' queue: the open reports, oldest first.
CREATE INDEX reports_open ON reports (created_at) WHERE status = 'open';
