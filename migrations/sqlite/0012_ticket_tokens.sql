-- Stream tickets minted with a personal access token (issue 16): revoking the token takes its
-- unused tickets with it. NULL for a ticket minted by a password session.
ALTER TABLE stream_tickets ADD COLUMN token_id TEXT REFERENCES personal_tokens (id) ON DELETE CASCADE;
