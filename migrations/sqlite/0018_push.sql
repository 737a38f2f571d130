-- Web Push (issue 36; README "Letters" and "Web Push"): the server's VAPID key pair, each
-- account's push subscriptions (one per device), and the outbox of push messages.

-- The VAPID key pair (RFC 8292), generated on first start like the token signing keys, so that
-- every server process on this database signs with the same key: the private scalar (sealed
-- with KEY_ENCRYPTION_KEY when set, else base64) and the public point (base64url, uncompressed).
CREATE TABLE push_keys (
    id           TEXT PRIMARY KEY,
    private_key  TEXT NOT NULL,
    public_key   TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);

-- A browser's subscription (PushSubscription.toJSON()): where to post, and the keys its
-- messages are encrypted to (RFC 8291).
CREATE TABLE push_subscriptions (
    id            TEXT PRIMARY KEY,           -- UUID
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,              -- the device, as its owner named it
    endpoint      TEXT NOT NULL,
    p256dh        TEXT NOT NULL,              -- base64url, the browser's public key
    auth          TEXT NOT NULL,              -- base64url, 16 bytes
    created_at    BIGINT NOT NULL,
    last_used_at  BIGINT,                     -- the last message its push service took
    UNIQUE (account_id, endpoint)
);
CREATE INDEX push_subscriptions_by_account ON push_subscriptions (account_id, created_at);

-- The outbox: one message per subscription per alert or digest, sent with leases as letters.
CREATE TABLE outgoing_pushes (
    id               TEXT PRIMARY KEY,        -- UUID
    subscription_id  TEXT NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    payload          TEXT NOT NULL,           -- JSON: title, body, url, tag
    created_at       BIGINT NOT NULL,
    next_attempt_at  BIGINT,                  -- NULL once sent or given up
    attempts         BIGINT NOT NULL DEFAULT 0,
    lease_until      BIGINT,
    sent_at          BIGINT,
    failed_at        BIGINT,
    last_error       TEXT
);
CREATE INDEX outgoing_pushes_due ON outgoing_pushes (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX outgoing_pushes_by_age ON outgoing_pushes (created_at);
CREATE INDEX outgoing_pushes_by_subscription ON outgoing_pushes (subscription_id);
