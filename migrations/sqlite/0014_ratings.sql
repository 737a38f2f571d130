-- Rated tables (issue 21). A rated match names the rating pool it counts in: the preset its
-- rules are (docs/ratings.md). NULL: not rated.
ALTER TABLE matches ADD COLUMN rating_pool TEXT;

-- Each account's rating in each pool it has played a rated match in (Weng-Lin, Plackett-Luce:
-- src/ratings.rs). `matches` counts the rated matches behind it and is the row's version: a
-- match that ends rewrites the rows of its players only if they still hold the counts it
-- was rated from, in the transaction that ends it.
CREATE TABLE ratings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    pool       TEXT NOT NULL,
    mu         REAL NOT NULL,
    sigma      REAL NOT NULL,
    matches    BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,                   -- Unix seconds
    PRIMARY KEY (account_id, pool)
);

-- Every rating change, one row per seat of each rated match, in the order the matches were
-- rated (`id`): the history a player page shows, and what `kings-corner ratings rebuild`
-- recomputes from the logs and compares. A match is rated once (the unique key).
CREATE TABLE rating_changes (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id     TEXT NOT NULL REFERENCES matches (id),
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    pool         TEXT NOT NULL,
    seat         BIGINT NOT NULL,
    place        BIGINT NOT NULL,                 -- 1 the best; equal places tied
    mu_before    REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after     REAL NOT NULL,
    sigma_after  REAL NOT NULL,
    created_at   BIGINT NOT NULL,                 -- Unix seconds
    UNIQUE (match_id, account_id)
);
CREATE INDEX rating_changes_by_player ON rating_changes (account_id, pool, id);

-- Leaderboards: a pool's players by the rating they are shown (src/ratings.rs `displayed`).
CREATE INDEX ratings_by_pool ON ratings (pool, (mu - 3 * sigma) DESC);
