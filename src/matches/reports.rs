//! Reports (docs/community.md, "Reporting"): an account tells the operators about an account, a
//! match, or one message of table talk, with a reason from a list and a note. The reporter
//! gets an id and follows the report's status; an operator resolves it with an outcome. A
//! report names only what its reporter can see, and at most [`MOST_PER_HOUR`] are made an
//! hour per account.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::Player;
use super::log::{Entry, Note};
use super::refusals::ReportError;
use super::{MatchError, Matches};
use crate::store::reports::{NewReport, ReportRow, Reported};

/// The most reports one account makes in an hour.
pub const MOST_PER_HOUR: i64 = 10;

/// The most characters of a report's note.
pub const MOST_NOTE_CHARACTERS: usize = 2_000;

/// The most reports `GET /v1/me/reports` lists.
const LISTED: i64 = 100;

/// What a report is about.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReportAbout {
    /// An account (`username`): its name, its conduct.
    Account,
    /// A match (`match_id`): what happened at the table.
    Match,
    /// One message of table talk (`match_id` and `seq`, its event number).
    Message,
}

/// Why a report is made.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReportReason {
    /// Insults, threats, unwanted attention.
    Harassment,
    /// Hatred of a group of people.
    HateSpeech,
    /// Playing with help, or several accounts at one table.
    Cheating,
    /// Advertising, floods of messages or invitations.
    Spam,
    /// A username that offends.
    OffensiveUsername,
    /// Anything else: say what in the note.
    Other,
}

impl ReportAbout {
    fn name(self) -> &'static str {
        match self {
            ReportAbout::Account => "account",
            ReportAbout::Match => "match",
            ReportAbout::Message => "message",
        }
    }
}

impl ReportReason {
    fn name(self) -> &'static str {
        match self {
            ReportReason::Harassment => "harassment",
            ReportReason::HateSpeech => "hate_speech",
            ReportReason::Cheating => "cheating",
            ReportReason::Spam => "spam",
            ReportReason::OffensiveUsername => "offensive_username",
            ReportReason::Other => "other",
        }
    }
}

/// A report to make.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"about": "message", "match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "seq": 12, "reason": "harassment", "note": "Third insult this game."}))]
pub struct NewReportRequest {
    /// What it is about: `account` needs `username`; `match` needs `match_id`; `message` needs
    /// `match_id` and `seq`, the event number of a `table_talk` in that match's feed.
    pub about: ReportAbout,
    /// The account reported (for `account`).
    pub username: Option<String>,
    /// The match reported, or the message's match.
    #[schema(format = Uuid)]
    pub match_id: Option<String>,
    /// The message's event number (for `message`).
    #[schema(minimum = 1)]
    pub seq: Option<i64>,
    /// Why.
    pub reason: ReportReason,
    /// What the operators should know, at most 2,000 characters.
    #[serde(default)]
    #[schema(max_length = 2000)]
    pub note: String,
}

/// A report, as its reporter follows it.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0b6f7c1e-8a8e-4c35-9a55-3c1f3f0b9d11", "about": "message", "username": "leo", "match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "seq": 12, "reason": "harassment", "note": "Third insult this game.", "status": "open", "outcome": null, "created_at": "2026-12-08T09:30:00Z", "resolved_at": null}))]
pub struct ReportView {
    /// Its id.
    #[schema(format = Uuid)]
    pub id: String,
    /// `account`, `match` or `message`.
    pub about: String,
    /// The account reported (a message's speaker); null for a match.
    pub username: Option<String>,
    /// The match reported (a message's match); null for an account.
    pub match_id: Option<String>,
    /// A message's event number.
    pub seq: Option<i64>,
    /// Why it was made.
    pub reason: String,
    /// The reporter's note.
    pub note: String,
    /// `open` until an operator resolves it, then `resolved`.
    pub status: String,
    /// What the operators decided, once resolved.
    pub outcome: Option<String>,
    /// When it was made (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
    /// When it was resolved (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub resolved_at: Option<i64>,
}

/// The caller's reports, newest first.
#[derive(Serialize, ToSchema)]
pub struct ReportList {
    /// The newest 100 reports, newest first.
    pub reports: Vec<ReportView>,
}

impl From<ReportRow> for ReportView {
    fn from(row: ReportRow) -> ReportView {
        ReportView {
            id: row.id,
            about: row.about,
            username: row.username,
            match_id: row.match_id,
            seq: row.seq,
            reason: row.reason,
            note: row.note,
            status: row.status,
            outcome: row.outcome,
            created_at: row.created_at,
            resolved_at: row.resolved_at,
        }
    }
}

/// What a report names, found and checked: the account and the match it is about.
struct Target {
    account_id: Option<String>,
    match_id: Option<String>,
    seq: Option<i64>,
}

impl Matches {
    /// Makes a report. Answers it and whether it was made now (`false`: the caller's open
    /// report about the same thing, which is not made twice).
    pub async fn report(
        &self,
        player: Player<'_>,
        request: NewReportRequest,
    ) -> Result<(ReportView, bool), MatchError> {
        if request.note.chars().count() > MOST_NOTE_CHARACTERS {
            return Err(invalid("note", "A note is at most 2,000 characters."));
        }
        let target = self.target(player, &request).await?;
        let now = self.clock.now();
        let report = NewReport {
            id: uuid::Uuid::new_v4().to_string(),
            reporter_id: player.id().to_owned(),
            about: request.about.name(),
            account_id: target.account_id,
            match_id: target.match_id,
            seq: target.seq,
            reason: request.reason.name(),
            note: request.note,
            created_at: now,
        };
        match self.db.insert_report(&report, MOST_PER_HOUR).await? {
            Reported::Now => {
                let made = self.db.report_of(player.id(), &report.id).await?;
                let made = made.ok_or_else(|| MatchError::Corrupt("a report just made".into()))?;
                Ok((made.into(), true))
            }
            Reported::Before(open) => Ok(((*open).into(), false)),
            Reported::TooMany(oldest) => Err(ReportError::TooManyReports {
                per_hour: MOST_PER_HOUR,
                retry_after: (oldest + 3600 - now).max(1) as u64,
            }
            .into()),
        }
    }

    /// One of the caller's reports.
    pub async fn report_made(
        &self,
        player: Player<'_>,
        id: &str,
    ) -> Result<ReportView, MatchError> {
        let report = self.db.report_of(player.id(), id).await?;
        Ok(report.ok_or(ReportError::ReportNotFound)?.into())
    }

    /// The caller's newest reports.
    pub async fn reports_made(&self, player: Player<'_>) -> Result<ReportList, MatchError> {
        let reports = self.db.reports_of(player.id(), LISTED).await?;
        Ok(ReportList {
            reports: reports.into_iter().map(ReportView::from).collect(),
        })
    }

    /// The account and match a report names, each one the reporter can see.
    async fn target(
        &self,
        player: Player<'_>,
        request: &NewReportRequest,
    ) -> Result<Target, MatchError> {
        let needs = |field: &'static str, about: &str| {
            invalid(
                field,
                &format!("A report about {about} names its `{field}`."),
            )
        };
        let unused = |field: &'static str, about: &str| {
            invalid(
                field,
                &format!("A report about {about} names no `{field}`."),
            )
        };
        match request.about {
            ReportAbout::Account => {
                if request.match_id.is_some() {
                    return Err(unused("match_id", "an account"));
                }
                if request.seq.is_some() {
                    return Err(unused("seq", "an account"));
                }
                let username = request
                    .username
                    .as_deref()
                    .ok_or_else(|| needs("username", "an account"))?;
                let account = self
                    .db
                    .account_by_username(username)
                    .await?
                    .ok_or_else(|| nothing("username", "No person's account has this name."))?;
                if account.id == player.id() {
                    return Err(ReportError::CannotReportYourself.into());
                }
                Ok(Target {
                    account_id: Some(account.id),
                    match_id: None,
                    seq: None,
                })
            }
            ReportAbout::Match | ReportAbout::Message => {
                let about = if request.about == ReportAbout::Match {
                    "a match"
                } else {
                    "a message"
                };
                if request.username.is_some() {
                    return Err(unused("username", about));
                }
                let match_id = request
                    .match_id
                    .as_deref()
                    .ok_or_else(|| needs("match_id", about))?;
                let seen = self
                    .ledger
                    .read_row_and_seats(match_id, player.viewer())
                    .await;
                let (read, seats, _) = match seen {
                    Err(MatchError::NotFound) => {
                        return Err(nothing("match_id", "No match you may read has this id."));
                    }
                    other => other?,
                };
                let match_id = Some(read.row.id.clone());
                if request.about == ReportAbout::Match {
                    if request.seq.is_some() {
                        return Err(unused("seq", about));
                    }
                    return Ok(Target {
                        account_id: None,
                        match_id,
                        seq: None,
                    });
                }
                let seq = request.seq.ok_or_else(|| needs("seq", about))?;
                if seq < 1 {
                    return Err(invalid("seq", "An event number is 1 or more."));
                }
                let talk = self
                    .ledger
                    .recorded(&read.row.id, seq - 1, 1)
                    .await?
                    .into_iter()
                    .find(|recorded| recorded.seq == seq);
                let speaker = match talk.map(|recorded| recorded.event) {
                    Some(Entry::Note(Note::TableTalk { seat, .. })) => seat,
                    _ => {
                        return Err(nothing(
                            "seq",
                            "The match's feed has no table talk at this event number.",
                        ));
                    }
                };
                let speaker = seats
                    .iter()
                    .find(|taken| taken.seat == speaker)
                    .map(|taken| taken.account_id.clone());
                if speaker.as_deref() == Some(player.id()) {
                    return Err(ReportError::CannotReportYourself.into());
                }
                Ok(Target {
                    account_id: speaker,
                    match_id,
                    seq: Some(seq),
                })
            }
        }
    }
}

fn invalid(field: &'static str, detail: &str) -> MatchError {
    ReportError::InvalidReport {
        field,
        detail: detail.to_owned(),
    }
    .into()
}

fn nothing(field: &'static str, detail: &str) -> MatchError {
    ReportError::NothingToReport {
        field,
        detail: detail.to_owned(),
    }
    .into()
}
