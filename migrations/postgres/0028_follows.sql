-- Follows (issue 39; docs/community.md, "Following"): an account follows players to find their
-- public matches (`GET /v1/matches?followed=true`). A block ends a follow of the blocker by the
-- blocked account, and keeps it from following again while it lasts.
CREATE TABLE follows (
    follower_id TEXT NOT NULL REFERENCES accounts (id),
    followed_id TEXT NOT NULL REFERENCES accounts (id),
    followed_at BIGINT NOT NULL,                  -- Unix seconds
    PRIMARY KEY (follower_id, followed_id)
);
-- The followers of a player (a block removes one).
CREATE INDEX follows_by_followed ON follows (followed_id);
