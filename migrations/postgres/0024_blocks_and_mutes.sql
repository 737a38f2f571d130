-- Blocks and muted talk (issue 39). Blocks (docs/community.md, "Blocking"): an account blocks
-- another; the blocked one cannot invite it, is never seated with it by quick pairing, cannot
-- join a table it created that is waiting, and its talk and nudges do not reach it. Blocking
-- is private: nothing the blocked account reads changes.
--
-- A row is one span of a block: `lifted_at` is NULL while it is in force and the time it was
-- lifted afterwards. Spans are kept, so talk written while a block was in force stays hidden
-- from the blocker after it is lifted (the feed asks whether the speaker was blocked when the
-- words were written, src/matches/feed.rs); blocking again starts a new span.
CREATE TABLE account_blocks (
    blocker_id TEXT NOT NULL REFERENCES accounts (id),
    blocked_id TEXT NOT NULL REFERENCES accounts (id),
    blocked_at BIGINT NOT NULL,                   -- Unix seconds
    lifted_at  BIGINT,                            -- NULL: in force
    PRIMARY KEY (blocker_id, blocked_id, blocked_at)
);
-- One span in force per pair; also the blocker's list, and "does X block Y now".
CREATE UNIQUE INDEX account_blocks_in_force ON account_blocks (blocker_id, blocked_id)
    WHERE lifted_at IS NULL;
-- The pairing round and a join ask whether anyone blocks a given account.
CREATE INDEX account_blocks_by_blocked ON account_blocks (blocked_id) WHERE lifted_at IS NULL;

-- Muted talk (docs/community.md, "Muting a table"): a reader of a match who muted it is not
-- shown the other seats' talk in its feed and stream while the mute lasts (the log keeps it).
CREATE TABLE talk_mutes (
    match_id   TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    muted_at   BIGINT NOT NULL,                   -- Unix seconds
    PRIMARY KEY (match_id, account_id)
);
