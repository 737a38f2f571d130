//! Invitations: the creator of a private match invites an account by username; the invitee is
//! told (`invited`, with the invite code) on their stream and webhooks. Each account is invited
//! once per match; inviting again answers the first invitation and tells nobody twice.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::Player;
use super::refusals::{InvitationError, SeatingError};
use super::{MatchError, Matches};
use crate::model::{MatchStatus, Visibility};
use crate::notifications::notice::{Invited as InvitedNotice, Notice};
use crate::store::invitations::Invited;
use crate::store::{StoreError, seat_of};

/// Most invitations one match may send.
pub const MOST_PER_MATCH: i64 = 20;

/// An invitation to send.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "leo"}))]
pub struct Invitation {
    /// Who to invite.
    pub username: String,
}

/// An invitation sent.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "username": "leo", "invited_at": "2026-11-18T11:06:40Z"}))]
pub struct InvitationView {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Who was invited.
    pub username: String,
    /// When (RFC 3339); the first time, for an account invited before.
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub invited_at: i64,
}

impl Matches {
    /// Invites `request.username` to the caller's private match, waiting for players. Answers
    /// the invitation and whether it was sent now (`false`: it had been sent before).
    pub async fn invite(
        &self,
        match_id: &str,
        player: Player<'_>,
        request: Invitation,
    ) -> Result<(InvitationView, bool), MatchError> {
        let (read, seats, role) = self
            .ledger
            .read_row_and_seats(match_id, player.viewer())
            .await?;
        let row = &read.row;
        role.invites(row.created_by == player.id())?;
        if row.visibility != Visibility::Private {
            return Err(MatchError::Invitation(InvitationError::NotPrivate));
        }
        if row.status != MatchStatus::Open {
            return Err(MatchError::Seating(SeatingError::MatchStarted));
        }
        let invitee = self
            .db
            .account_by_username(&request.username)
            .await?
            .ok_or(MatchError::Invitation(InvitationError::UnknownUsername))?;
        if seat_of(&seats, &invitee.id).is_some() {
            return Err(MatchError::Invitation(InvitationError::AlreadySeated));
        }
        if self.db.blocks(&invitee.id, player.id()).await? {
            return Err(MatchError::Invitation(InvitationError::Declined));
        }
        let inviter = seat_of(&seats, player.id())
            .and_then(|seat| seats.iter().find(|taken| taken.seat == seat))
            .map_or_else(String::new, |seat| seat.username.clone());
        let now = self.clock.now();
        let notice = Notice::Invited(InvitedNotice {
            match_id: row.id.clone(),
            invited_by: inviter,
            invite_code: row.invite_code.clone().unwrap_or_default(),
            seat_count: row.seat_count,
        });
        let invited = match self
            .db
            .invite(
                &row.id,
                &invitee.id,
                MOST_PER_MATCH,
                &notice.to(&invitee.id, now),
            )
            .await
        {
            // Another request invited them at the same moment.
            Err(StoreError::Conflict(_)) => Invited::Before(now),
            other => other?,
        };
        let view = |invited_at| InvitationView {
            match_id: row.id.clone(),
            username: invitee.username.clone(),
            invited_at,
        };
        match invited {
            Invited::Now => {
                self.relay.wake();
                Ok((view(now), true))
            }
            Invited::Before(at) => Ok((view(at), false)),
            Invited::Full => Err(MatchError::Invitation(InvitationError::TooManyInvitations(
                MOST_PER_MATCH,
            ))),
        }
    }
}
