//! Muted talk (docs/community.md, "Muting a table"): a reader of a match mutes its talk for
//! itself. While muted, the other seats' `table_talk` is left out of its feed and stream (the
//! log keeps it, and everybody else reads it); unmuted, all of it shows again, what was said
//! meanwhile too. Only talk is muted: nudges and the play are not.

use serde::Serialize;
use utoipa::ToSchema;

use super::access::Player;
use super::{MatchError, Matches};

/// Whether the caller hears a match's talk.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"muted": true, "muted_at": "2026-12-08T09:30:00Z"}))]
pub struct TalkMute {
    /// Whether the other seats' talk is left out of your feed and stream.
    pub muted: bool,
    /// Since when (RFC 3339); null when not muted.
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub muted_at: Option<i64>,
}

impl TalkMute {
    fn since(muted_at: Option<i64>) -> TalkMute {
        TalkMute {
            muted: muted_at.is_some(),
            muted_at,
        }
    }
}

impl Matches {
    /// Whether the caller muted the talk of a match they may read.
    pub async fn talk_mute(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<TalkMute, MatchError> {
        let (read, _) = self.ledger.read_row(match_id, player.viewer()).await?;
        let muted_at = self.db.talk_muted(&read.row.id, player.id()).await?;
        Ok(TalkMute::since(muted_at))
    }

    /// Mutes the talk of a match the caller may read, for the caller alone.
    pub async fn mute_talk(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<TalkMute, MatchError> {
        let (read, _) = self.ledger.read_row(match_id, player.viewer()).await?;
        let muted_at = self
            .db
            .mute_talk(&read.row.id, player.id(), self.clock.now())
            .await?;
        Ok(TalkMute::since(Some(muted_at)))
    }

    /// Lets a match's talk reach the caller again.
    pub async fn unmute_talk(
        &self,
        match_id: &str,
        player: Player<'_>,
    ) -> Result<TalkMute, MatchError> {
        let (read, _) = self.ledger.read_row(match_id, player.viewer()).await?;
        self.db.unmute_talk(&read.row.id, player.id()).await?;
        Ok(TalkMute::since(None))
    }
}
