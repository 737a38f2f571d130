-- A deleted account stays as a tombstone, so the matches it played keep their history: its
-- username becomes '[deleted]', its key '[deleted]:<id>' (no registration can take it), its
-- password hash is emptied (no password matches) and its refresh tokens are gone.
ALTER TABLE accounts ADD COLUMN deleted_at BIGINT;   -- Unix seconds; NULL while the account lives
