-- The newest snapshot of each match's state (issue 19): where a server resumes a long match
-- (after a restart, or when its cache let the match go) instead of folding the log from its
-- first event. Never the record: replays, exports and `verify` read the log alone. A snapshot
-- is used only while event `version` of the log still has the hash `hash`, and only in the
-- layout `format` the server writes; anything else is ignored and the log folded instead.
-- `state` holds the stock's order: like the secret, it is never served.
CREATE TABLE match_snapshots (
    match_id TEXT PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    version  BIGINT NOT NULL,              -- events folded into it
    hash     TEXT NOT NULL,                -- the log's hash of event `version`
    format   BIGINT NOT NULL,              -- the layout of `state`
    state    TEXT NOT NULL,                -- JSON
    taken_at BIGINT NOT NULL               -- Unix seconds
);
