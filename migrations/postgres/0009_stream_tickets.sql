-- Stream tickets (issue 11): a browser's EventSource cannot send an Authorization header, so it
-- opens a stream with a ticket in the URL instead. A ticket is single-use, lives a minute,
-- reads only, and is stored as its SHA-256 hash.
CREATE TABLE stream_tickets (
    ticket_hash TEXT PRIMARY KEY,          -- hex SHA-256 of the ticket
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    expires_at  BIGINT NOT NULL            -- Unix seconds
);
CREATE INDEX stream_tickets_expiry ON stream_tickets (expires_at);
