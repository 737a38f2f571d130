//! What an account is told: the types of notification and their fields, the same on the
//! account stream and in webhook deliveries.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::model::Outcome;
use crate::ratings::RatedResult;
use crate::rules::{OutReason, Seat};
use crate::store::notifications::{NewNotification, StoredNotification};
use crate::time_source::rfc3339;

/// A notification's type and fields: `{"type": "your_turn", "data": {…}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum Notice {
    /// It is the account's turn.
    YourTurn(YourTurn),
    /// A match the account sits in has every seat taken and has started.
    MatchStarted(MatchStarted),
    /// A match the account sat in is over.
    MatchFinished(MatchFinished),
    /// Someone took a seat in a match the account waits in.
    SeatJoined(SeatChanged),
    /// Someone gave up their seat in a match the account waits in.
    SeatLeft(SeatChanged),
    /// The creator of a private match invites the account.
    Invited(Invited),
    /// The account's turn has a tenth of its time left.
    DeadlineNear(DeadlineNear),
    /// A seat left a match the account plays in (resigned, or ran out of time).
    SeatOut(SeatOut),
    /// Another player of a match the account played offers a rematch: join it to accept.
    RematchOffered(RematchOffered),
    /// Another seat reminds the account that the table waits for its move.
    Nudged(Nudged),
    /// Another player of a match the account plays in went on vacation: their seat's clock
    /// stops until `until`.
    VacationStarted(VacationChanged),
    /// Another player of a match the account plays in came back from vacation early.
    VacationEnded(VacationChanged),
}

/// The types of notification, as webhooks name the ones they want.
pub const KINDS: [&str; 12] = [
    "your_turn",
    "match_started",
    "match_finished",
    "seat_joined",
    "seat_left",
    "invited",
    "deadline_near",
    "seat_out",
    "rematch_offered",
    "nudged",
    "vacation_started",
    "vacation_ended",
];

/// `vacation_started` and `vacation_ended`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "version": 21, "seat": 1, "until": "2026-12-27T18:00:00Z"}))]
pub struct VacationChanged {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Its version after the change.
    pub version: i64,
    /// The seat whose player went away or came back.
    pub seat: Seat,
    /// `vacation_started`: when the vacation ends, unless its player comes back before
    /// (RFC 3339); `null` for `vacation_ended`.
    #[schema(format = DateTime)]
    pub until: Option<String>,
}

/// `nudged`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "version": 15, "seat": 1, "by": 0}))]
pub struct Nudged {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Its version: the `expected_version` of the account's next move.
    pub version: i64,
    /// The account's seat, to move.
    pub seat: Seat,
    /// The seat that nudged it.
    pub by: Seat,
}

/// `rematch_offered`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"match_id": "0c6b9f1e-2d3a-4b5c-8d7e-6f5a4b3c2d1e", "previous_match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "offered_by": "maya", "seat": 0, "seat_count": 2}))]
pub struct RematchOffered {
    /// The rematch: `POST /v1/matches/{id}/join` to accept (no invite code needed).
    #[schema(format = Uuid)]
    pub match_id: String,
    /// The match it follows.
    #[schema(format = Uuid)]
    pub previous_match_id: String,
    /// Who offers it.
    pub offered_by: String,
    /// The account's seat in it once everyone has joined (one on from its seat before).
    pub seat: Seat,
    /// Seats at the table.
    pub seat_count: u8,
}

/// `your_turn`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "version": 14, "seat": 1, "deadline": "2026-12-01T18:00:00Z"}))]
pub struct YourTurn {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Its version: the `expected_version` of the next move.
    pub version: i64,
    /// The account's seat.
    pub seat: Seat,
    /// With a clock: when the turn runs out (RFC 3339).
    #[schema(format = DateTime)]
    pub deadline: Option<String>,
}

/// `match_started`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MatchStarted {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Its version after the deal.
    pub version: i64,
    /// The account's seat.
    pub seat: Seat,
}

/// `match_finished`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MatchFinished {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Its final version.
    pub version: i64,
    /// The account's seat.
    pub seat: Seat,
    /// `finished`, `resigned`, `timeout` or `aborted`.
    pub ended_by: Outcome,
    /// The seats that share the win (none for an aborted match).
    pub winners: Vec<Seat>,
    /// Each seat's final total.
    pub final_totals: Vec<u32>,
    /// At a rated table: the account's place and its rating in the match's pool before and
    /// after the match (docs/ratings.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatedResult>,
}

/// `seat_joined` and `seat_left`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SeatChanged {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Who joined or left.
    pub username: String,
    /// Seats taken now.
    pub seats_taken: u8,
    /// Seats at the table.
    pub seat_count: u8,
}

/// `invited`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Invited {
    /// The private match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Who invites (the match's creator).
    pub invited_by: String,
    /// The code to join with: `POST /v1/matches/{id}/join` with `invite_code`.
    pub invite_code: String,
    /// Seats at the table.
    pub seat_count: u8,
}

/// `deadline_near`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeadlineNear {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Its version.
    pub version: i64,
    /// The account's seat.
    pub seat: Seat,
    /// When the turn runs out (RFC 3339).
    #[schema(format = DateTime)]
    pub deadline: String,
}

/// `seat_out`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SeatOut {
    /// The match.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// Its version after the seat left.
    pub version: i64,
    /// The seat that left.
    pub seat: Seat,
    /// `resign` or `timeout`.
    pub reason: OutReason,
}

impl Notice {
    /// The match it is about.
    pub fn match_id(&self) -> &str {
        match self {
            Notice::YourTurn(notice) => &notice.match_id,
            Notice::MatchStarted(notice) => &notice.match_id,
            Notice::MatchFinished(notice) => &notice.match_id,
            Notice::SeatJoined(notice) | Notice::SeatLeft(notice) => &notice.match_id,
            Notice::Invited(notice) => &notice.match_id,
            Notice::DeadlineNear(notice) => &notice.match_id,
            Notice::SeatOut(notice) => &notice.match_id,
            Notice::RematchOffered(notice) => &notice.match_id,
            Notice::Nudged(notice) => &notice.match_id,
            Notice::VacationStarted(notice) | Notice::VacationEnded(notice) => &notice.match_id,
        }
    }

    /// Its type's name (the serialised tag: one name, in one place).
    pub fn kind(&self) -> &'static str {
        let tagged = serde_json::to_value(self).expect("notices serialise");
        KINDS
            .into_iter()
            .find(|kind| tagged["type"] == *kind)
            .expect("every type of notice is in KINDS")
    }

    /// The notice for `account_id`, to be written at `now` with what causes it.
    pub fn to(&self, account_id: &str, now: i64) -> NewNotification {
        let mut tagged = serde_json::to_value(self).expect("notices serialise");
        NewNotification {
            message_id: format!("msg_{}", uuid::Uuid::new_v4().simple()),
            account_id: account_id.to_owned(),
            kind: self.kind(),
            data: tagged["data"].take().to_string(),
            created_at: now,
        }
    }
}

/// A notification of the account's stream.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "seq": 7, "id": "msg_2f1c8e0d9b7a4c6e8f0a1b2c3d4e5f60", "timestamp": "2026-11-30T09:15:00Z",
    "type": "your_turn",
    "data": {"match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "version": 14, "seat": 1, "deadline": null}
}))]
pub struct Notification {
    /// Its place in the account's stream: 1, 2, 3, … with no gaps (a jump means the ones
    /// between have expired).
    pub seq: i64,
    /// Unique; the `webhook-id` of its deliveries, for receivers to drop duplicates.
    pub id: String,
    /// When it happened (RFC 3339).
    #[schema(format = DateTime)]
    pub timestamp: String,
    /// Its type and fields.
    #[serde(flatten)]
    pub notice: Notice,
}

impl Notification {
    /// A stored notification read back; `None` if it does not decode (a bug, logged).
    pub fn decode(stored: StoredNotification) -> Option<Notification> {
        let data = serde_json::from_str::<serde_json::Value>(&stored.data).ok()?;
        let notice = serde_json::json!({"type": stored.kind, "data": data});
        match serde_json::from_value(notice) {
            Ok(notice) => Some(Notification {
                seq: stored.seq,
                id: stored.message_id,
                timestamp: rfc3339(stored.created_at),
                notice,
            }),
            Err(error) => {
                tracing::error!(%error, kind = stored.kind, "a stored notification does not decode");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new kind of notification is named where client authors read about them.
    #[test]
    fn the_notifications_page_names_every_kind() {
        let page = include_str!("../../docs/notifications.md");
        for kind in KINDS {
            assert!(
                page.contains(&format!("`{kind}`")),
                "docs/notifications.md names `{kind}`"
            );
        }
    }

    #[test]
    fn a_notice_written_reads_back_the_same() {
        let notice = Notice::YourTurn(YourTurn {
            match_id: "m".into(),
            version: 3,
            seat: 1,
            deadline: Some("2026-12-01T00:00:00Z".into()),
        });
        let written = notice.to("account", 100);
        assert_eq!(written.kind, "your_turn");
        let read = Notification::decode(StoredNotification {
            seq: 1,
            message_id: written.message_id.clone(),
            kind: written.kind.to_owned(),
            data: written.data,
            created_at: 100,
        })
        .unwrap();
        assert_eq!(read.notice, notice);
        let json = serde_json::to_value(&read).unwrap();
        assert_eq!(json["type"], "your_turn");
        assert_eq!(json["data"]["seat"], 1);
        assert_eq!(json["seq"], 1);
    }
}
