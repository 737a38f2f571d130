-- Built-in bots (issue 9).

-- A bot's seat is held by one of eight bot accounts: a match seats the lowest-numbered one not
-- yet at its table, so several bots can share a table. Nobody can log in as one: no password
-- matches an empty hash, and '[bot]:n' is not a username anyone can register or type.
INSERT INTO accounts (id, username, username_key, password_hash, created_at) VALUES
    ('bot:1', '[bot]', '[bot]:1', '', 0),
    ('bot:2', '[bot]', '[bot]:2', '', 0),
    ('bot:3', '[bot]', '[bot]:3', '', 0),
    ('bot:4', '[bot]', '[bot]:4', '', 0),
    ('bot:5', '[bot]', '[bot]:5', '', 0),
    ('bot:6', '[bot]', '[bot]:6', '', 0),
    ('bot:7', '[bot]', '[bot]:7', '', 0),
    ('bot:8', '[bot]', '[bot]:8', '', 0);

-- The level of the bot in a seat ('random', 'basic', 'expert'); NULL for a person.
ALTER TABLE match_seats ADD COLUMN bot_level TEXT;

-- The read model of bot turns, kept with the log: since when the seat to move is a bot whose
-- turn waits to be played (NULL when a person is to move), and a server process's claim on
-- playing it (Unix seconds until which the claim holds).
ALTER TABLE matches ADD COLUMN bot_turn_since BIGINT;
ALTER TABLE matches ADD COLUMN bot_lease BIGINT;
-- 1: a seated player may ask for a hint; 0: the table wants none.
ALTER TABLE matches ADD COLUMN hints BIGINT NOT NULL DEFAULT 1;

CREATE INDEX matches_bot_turn ON matches (bot_turn_since) WHERE bot_turn_since IS NOT NULL;
