-- Reaching a player who has left the table (issue 36; README "Notifications by email"): an
-- email address on the account, verified by a link; password reset by email; turn emails per
-- kind with digests and quiet hours; the outbox every email goes out through.

-- The owner's address as they typed it (checked for shape only), when they verified it, and
-- whether mail to it stopped (a bounce or a permanent SMTP refusal) until it is verified again.
ALTER TABLE accounts ADD COLUMN email TEXT;
ALTER TABLE accounts ADD COLUMN email_verified_at BIGINT;
ALTER TABLE accounts ADD COLUMN email_stopped_at BIGINT;
ALTER TABLE accounts ADD COLUMN email_stopped_reason TEXT;
-- Access tokens issued before this moment are refused (a password reset signs every session
-- out, access tokens included). NULL: none refused.
ALTER TABLE accounts ADD COLUMN tokens_valid_from BIGINT;
-- Until when the owner is watching live (an account stream or a table stream open in some
-- server process, renewed while it stays open): events that happen meanwhile send no alert.
ALTER TABLE accounts ADD COLUMN watching_until BIGINT;
CREATE INDEX accounts_by_email ON accounts (LOWER(email)) WHERE email IS NOT NULL;

-- Single-use tokens sent by email, stored as SHA-256 hashes: `verify` confirms `email` for the
-- account (and only that address: a changed address needs a new link); `reset` sets a new
-- password.
CREATE TABLE email_tokens (
    token_hash  TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL,                -- verify, reset
    email       TEXT NOT NULL,                -- the address the link was sent to
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX email_tokens_by_account ON email_tokens (account_id, purpose);

-- The outbox: every email, written in the transaction of what causes it, sent by whichever
-- server process claims it (a lease), retried with backoff, marked sent once the SMTP server
-- accepted it.
CREATE TABLE outgoing_mail (
    id               TEXT PRIMARY KEY,        -- UUID: also the Message-ID's local part
    account_id       TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    recipient        TEXT NOT NULL,
    purpose          TEXT NOT NULL,           -- verify, reset, password_changed, email_changed, alerts
    subject          TEXT NOT NULL,
    text_body        TEXT NOT NULL,
    html_body        TEXT NOT NULL,
    unsubscribe_url  TEXT,                    -- List-Unsubscribe (RFC 8058 one-click), for alerts
    created_at       BIGINT NOT NULL,
    next_attempt_at  BIGINT,                  -- NULL once sent or given up
    attempts         BIGINT NOT NULL DEFAULT 0,
    lease_until      BIGINT,
    sent_at          BIGINT,
    failed_at        BIGINT,                  -- given up: a permanent refusal, or retried for too long
    last_error       TEXT
);
CREATE INDEX outgoing_mail_due ON outgoing_mail (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX outgoing_mail_by_age ON outgoing_mail (created_at);
CREATE INDEX outgoing_mail_by_account ON outgoing_mail (account_id, purpose, created_at);

-- What an account wants to be told away from the table, by which channel. No row: nothing.
CREATE TABLE alert_settings (
    account_id   TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    email_kinds  TEXT NOT NULL DEFAULT '',    -- space-separated notification kinds
    push_kinds   TEXT NOT NULL DEFAULT '',
    digest       TEXT NOT NULL DEFAULT 'each', -- each, hourly, daily
    digest_hour  BIGINT NOT NULL DEFAULT 8,   -- daily: the local hour, 0-23
    quiet_from   BIGINT,                      -- minutes after local midnight; NULL: no quiet hours
    quiet_until  BIGINT,
    time_zone    TEXT NOT NULL DEFAULT 'UTC', -- IANA
    updated_at   BIGINT NOT NULL
);

-- Notifications waiting to be sent by a channel, written by the relay as it numbers them.
CREATE TABLE pending_alerts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    channel     TEXT NOT NULL,                -- email, push
    message_id  TEXT NOT NULL,                -- the notification's public id
    kind        TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX pending_alerts_by_queue ON pending_alerts (account_id, channel, id);

-- One queue per account and channel: when its pending alerts are next due (NULL: to be worked
-- out again, after a new alert or a change of settings), the claim of the process composing
-- them, and when the last message went.
CREATE TABLE alert_queues (
    id            TEXT PRIMARY KEY,           -- account_id || ':' || channel
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    channel       TEXT NOT NULL,
    due_at        BIGINT,
    waiting       BIGINT NOT NULL DEFAULT 0,  -- 1 while alerts are pending
    lease_until   BIGINT,
    last_sent_at  BIGINT
);
CREATE INDEX alert_queues_due ON alert_queues (due_at) WHERE waiting = 1;

-- One-click unsubscribe links (RFC 8058): each turns the listed kinds off for email.
CREATE TABLE unsubscribe_tokens (
    token_hash  TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kinds       TEXT NOT NULL,                -- space-separated
    created_at  BIGINT NOT NULL
);
CREATE INDEX unsubscribe_tokens_by_age ON unsubscribe_tokens (created_at);
