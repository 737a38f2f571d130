//! Following players (docs/community.md, "Following"): an account follows players to find their
//! public matches (`GET /v1/matches?followed=true`, [`super::listing`]). An account that a
//! player blocks does not follow them: the block ends its follow, and a new one is declined.

use serde::Serialize;
use utoipa::ToSchema;

use super::access::Player;
use super::refusals::FollowError;
use super::{MatchError, Matches};
use crate::store::follows::{FollowRow, Followed};

/// The most players one account follows.
pub const MOST_FOLLOWS: i64 = 1_000;

/// A player followed.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"username": "leo", "followed_at": "2026-12-08T09:30:00Z"}))]
pub struct FollowView {
    /// The player.
    pub username: String,
    /// Since when (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub followed_at: i64,
}

/// The players the caller follows, by username.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"follows": [{"username": "leo", "followed_at": "2026-12-08T09:30:00Z"}], "most": 1000}))]
pub struct FollowList {
    /// Every player followed, by username (case aside).
    pub follows: Vec<FollowView>,
    /// The most players an account follows.
    pub most: i64,
}

impl From<FollowRow> for FollowView {
    fn from(row: FollowRow) -> FollowView {
        FollowView {
            username: row.username,
            followed_at: row.followed_at,
        }
    }
}

impl Matches {
    /// Follows the player named `username` for the caller. Answers the follow and whether it
    /// began now (`false`: the caller followed them already).
    pub async fn follow_player(
        &self,
        player: Player<'_>,
        username: &str,
    ) -> Result<(FollowView, bool), MatchError> {
        let followed = self
            .db
            .account_by_username(username)
            .await?
            .ok_or(FollowError::UnknownUsername)?;
        if followed.id == player.id() {
            return Err(FollowError::CannotFollowYourself.into());
        }
        let now = self.clock.now();
        let view = |followed_at| FollowView {
            username: followed.username.clone(),
            followed_at,
        };
        match self
            .db
            .follow(player.id(), &followed.id, MOST_FOLLOWS, now)
            .await?
        {
            Followed::Now => Ok((view(now), true)),
            Followed::Before(at) => Ok((view(at), false)),
            Followed::Full => Err(FollowError::TooManyFollows(MOST_FOLLOWS).into()),
            Followed::Blocked => Err(FollowError::Declined.into()),
        }
    }

    /// Stops following `username`.
    pub async fn unfollow_player(
        &self,
        player: Player<'_>,
        username: &str,
    ) -> Result<(), MatchError> {
        let followed = self
            .db
            .account_by_username(username)
            .await?
            .ok_or(FollowError::UnknownUsername)?;
        if self.db.unfollow(player.id(), &followed.id).await? {
            Ok(())
        } else {
            Err(FollowError::NotFollowing.into())
        }
    }

    /// The players the caller follows.
    pub async fn players_followed(&self, player: Player<'_>) -> Result<FollowList, MatchError> {
        let follows = self.db.follows_of(player.id()).await?;
        Ok(FollowList {
            follows: follows.into_iter().map(FollowView::from).collect(),
            most: MOST_FOLLOWS,
        })
    }
}
