-- Spectator links (issue 11): a private match's players may share its spectator code; whoever
-- opens the match with `?watch=<code>` watches it as a spectator (never a hand). NULL for public
-- matches (anyone may watch them) and for private matches created before this migration.
ALTER TABLE matches ADD COLUMN spectator_code TEXT;
