-- Accounts and authentication (PostgreSQL).

-- One row per registered player.
CREATE TABLE accounts (
    id            TEXT PRIMARY KEY,        -- UUID v4
    username      TEXT NOT NULL,           -- as the player typed it
    username_key  TEXT NOT NULL UNIQUE,    -- lower-cased: usernames are unique regardless of case
    password_hash TEXT NOT NULL,           -- argon2id, PHC string format
    created_at    BIGINT NOT NULL          -- Unix seconds
);

-- Opaque refresh tokens, stored only as SHA-256 hashes. Each login starts a family; every
-- refresh marks its token used and issues the next one in the same family. Presenting a used
-- token again is theft or a replay: the whole family is revoked.
CREATE TABLE refresh_tokens (
    token_hash  TEXT PRIMARY KEY,          -- hex SHA-256 of the token
    account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    family_id   TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT,                    -- set when rotated
    revoked_at  BIGINT                     -- set when the family is revoked (logout, reuse)
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);

-- HS256 keys for access tokens, generated on first start so that every server process on this
-- database signs and verifies with the same keys; `kid` in each token names its key.
CREATE TABLE signing_keys (
    kid        TEXT PRIMARY KEY,
    secret     TEXT NOT NULL,              -- base64 of 32 random bytes
    created_at BIGINT NOT NULL
);
