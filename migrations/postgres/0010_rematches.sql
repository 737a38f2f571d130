-- Rematches (issue 11): a finished match points to the next one its players agreed to play, and
-- that one back to it. A rematch's seats are kept for the players of the match before it (each
-- planned one seat on, so that the deal moves on), and its first dealer is set rather than drawn.
ALTER TABLE matches ADD COLUMN next_match_id TEXT;
ALTER TABLE matches ADD COLUMN rematch_of TEXT;
ALTER TABLE matches ADD COLUMN first_dealer BIGINT;   -- NULL: drawn from the shuffle (RULES.md §9)

-- Who may take a seat in a rematch, and where each sits once the table is full.
CREATE TABLE match_reservations (
    match_id   TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat       BIGINT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    PRIMARY KEY (match_id, seat),
    UNIQUE (match_id, account_id)
);
