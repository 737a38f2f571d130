-- Telling players what happened while they were away (issue 10): each account's stream of
-- notifications, invitations to private matches, personal access tokens and webhooks.

-- Notifications are written in the same transaction as what causes them (a move, a seat
-- change, an invitation), with `seq` NULL. A relay then gives each its place in its account's
-- stream (`seq`, from the account's counter), in one transaction with the webhook deliveries it
-- causes: an account's stream is dense (1, 2, 3, …) and never changes order once read.
ALTER TABLE accounts ADD COLUMN notification_seq BIGINT NOT NULL DEFAULT 0;

CREATE TABLE notifications (
    id          BIGSERIAL PRIMARY KEY,
    message_id  TEXT NOT NULL UNIQUE,          -- the public id (webhook-id), stable across retries
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    kind        TEXT NOT NULL,                 -- your_turn, match_started, …
    data        TEXT NOT NULL,                 -- JSON: the kind's fields
    created_at  BIGINT NOT NULL,               -- Unix seconds
    seq         BIGINT                         -- its place in the account's stream; NULL until relayed
);
CREATE UNIQUE INDEX notifications_by_account ON notifications (account_id, seq);
CREATE INDEX notifications_to_relay ON notifications (id) WHERE seq IS NULL;
CREATE INDEX notifications_by_age ON notifications (created_at);

-- Who the creator of a private match invited: once each.
CREATE TABLE match_invitations (
    match_id    TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    invited_at  BIGINT NOT NULL,
    PRIMARY KEY (match_id, account_id)
);

-- Long-lived tokens for bots and integrations: only a hash is kept.
CREATE TABLE personal_tokens (
    id            TEXT PRIMARY KEY,            -- UUID
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    name          TEXT NOT NULL,
    token_hash    TEXT NOT NULL UNIQUE,        -- hex SHA-256 of the token
    scopes        TEXT NOT NULL,               -- space-separated: play read webhooks account
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT,                      -- NULL: until revoked
    last_used_at  BIGINT                       -- to the minute
);
CREATE INDEX personal_tokens_by_account ON personal_tokens (account_id, created_at);

CREATE TABLE webhooks (
    id               TEXT PRIMARY KEY,         -- UUID
    account_id       TEXT NOT NULL REFERENCES accounts (id),
    url              TEXT NOT NULL,
    secret           TEXT NOT NULL,            -- the signing secret, sealed when a key encryption key is set
    created_at       BIGINT NOT NULL,
    disabled_at      BIGINT,                   -- set after persistent failure
    disabled_reason  TEXT,
    -- When its oldest pending delivery is due (deliveries go out one at a time, in order);
    -- NULL: nothing pending.
    next_attempt_at  BIGINT,
    failing_since    BIGINT,                   -- the first failed attempt since the last success
    lease_until      BIGINT                    -- a process's claim on its deliveries
);
CREATE INDEX webhooks_by_account ON webhooks (account_id, created_at);
CREATE INDEX webhooks_due ON webhooks (next_attempt_at) WHERE disabled_at IS NULL;

-- The notification types a webhook wants.
CREATE TABLE webhook_kinds (
    webhook_id  TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    PRIMARY KEY (webhook_id, kind)
);

-- The outbox: one row per notification per webhook, written with the notification's place in
-- the stream.
CREATE TABLE webhook_deliveries (
    id               BIGSERIAL PRIMARY KEY,
    webhook_id       TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    notification_id  BIGINT NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    state            TEXT NOT NULL,            -- pending, delivered
    attempts         BIGINT NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    finished_at      BIGINT,                   -- when it was delivered
    UNIQUE (webhook_id, notification_id)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX webhook_deliveries_of_notification ON webhook_deliveries (notification_id);

CREATE TABLE webhook_attempts (
    id            BIGSERIAL PRIMARY KEY,
    delivery_id   BIGINT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at  BIGINT NOT NULL,
    status_code   BIGINT,                      -- the receiver's answer; NULL when none came
    error         TEXT,                        -- why it failed, when it did
    duration_ms   BIGINT NOT NULL
);
CREATE INDEX webhook_attempts_of_delivery ON webhook_attempts (delivery_id, id);
