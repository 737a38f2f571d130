//! Blocks (docs/community.md, "Blocking"): an account keeps another away from its tables. The
//! blocked account cannot invite the blocker ([`super::invitations`]), is never seated with it
//! by quick pairing ([`super::seeks`]), cannot join a waiting table the blocker created
//! ([`super::seating`]), and its talk and nudges do not reach the blocker: they are written to
//! the log as ever, and left out of the blocker's feed and stream ([`super::feed`]) and
//! notifications ([`super::clock_worker`]).
//!
//! Blocking is private: the blocked account is not told, and nothing it reads changes. Where it
//! is refused something, the answer is the one an account gets that does not take invitations
//! or seats from it for any reason.

use serde::Serialize;
use utoipa::ToSchema;

use super::access::Player;
use super::refusals::BlockError;
use super::{MatchError, Matches};
use crate::store::blocks::{BlockRow, Blocked};

/// The most accounts one account blocks at once.
pub const MOST_BLOCKS: i64 = 1_000;

/// A block in force.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"username": "leo", "blocked_at": "2026-12-08T09:30:00Z"}))]
pub struct BlockView {
    /// The blocked account.
    pub username: String,
    /// Since when (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub blocked_at: i64,
}

/// The caller's blocks in force, by username.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"blocks": [{"username": "leo", "blocked_at": "2026-12-08T09:30:00Z"}], "most": 1000}))]
pub struct BlockList {
    /// Every block in force, by username (case aside).
    pub blocks: Vec<BlockView>,
    /// The most blocks an account holds at once.
    pub most: i64,
}

impl From<BlockRow> for BlockView {
    fn from(row: BlockRow) -> BlockView {
        BlockView {
            username: row.username,
            blocked_at: row.blocked_at,
        }
    }
}

impl Matches {
    /// Blocks the account named `username` for the caller. Answers the block and whether it
    /// began now (`false`: it was in force already, since its `blocked_at`).
    pub async fn block(
        &self,
        player: Player<'_>,
        username: &str,
    ) -> Result<(BlockView, bool), MatchError> {
        let blocked = self
            .db
            .account_by_username(username)
            .await?
            .ok_or(BlockError::UnknownUsername)?;
        if blocked.id == player.id() {
            return Err(BlockError::CannotBlockYourself.into());
        }
        let now = self.clock.now();
        let view = |blocked_at| BlockView {
            username: blocked.username.clone(),
            blocked_at,
        };
        match self
            .db
            .block(player.id(), &blocked.id, MOST_BLOCKS, now)
            .await?
        {
            Blocked::Now => Ok((view(now), true)),
            Blocked::Before(at) => Ok((view(at), false)),
            Blocked::Full => Err(BlockError::TooManyBlocks(MOST_BLOCKS).into()),
        }
    }

    /// Lifts the caller's block of `username`. Talk written while it was in force stays hidden
    /// from the caller; what the account says from now on reaches them again.
    pub async fn unblock(&self, player: Player<'_>, username: &str) -> Result<(), MatchError> {
        let blocked = self
            .db
            .account_by_username(username)
            .await?
            .ok_or(BlockError::UnknownUsername)?;
        if self
            .db
            .unblock(player.id(), &blocked.id, self.clock.now())
            .await?
        {
            Ok(())
        } else {
            Err(BlockError::NotBlocked.into())
        }
    }

    /// The caller's blocks in force.
    pub async fn blocks(&self, player: Player<'_>) -> Result<BlockList, MatchError> {
        let blocks = self.db.blocks_of(player.id()).await?;
        Ok(BlockList {
            blocks: blocks.into_iter().map(BlockView::from).collect(),
            most: MOST_BLOCKS,
        })
    }
}
