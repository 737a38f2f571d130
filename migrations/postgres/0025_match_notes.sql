-- Private notes (issue 39; docs/community.md, "Notes"): a player's own notes on a match, one
-- text per match and account, read by their writer alone. They are kept after the match ends,
-- are part of the player's own data, and never of the match's export.
CREATE TABLE match_notes (
    match_id   TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    text       TEXT NOT NULL,
    updated_at BIGINT NOT NULL,                   -- Unix seconds
    PRIMARY KEY (match_id, account_id)
);
