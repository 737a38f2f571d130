//! Moderation (docs/operations.md, "Moderation"): what operators do through `kings-corner
//! admin` on the server's database. The queue of reports, one report shown with the reported
//! message in its context, a report resolved with an outcome its reporter reads; and the audit
//! log, in which every operator action is recorded with who took it, when and why, in the
//! transaction of the action itself.

use std::fmt;

use super::log::{Entry, Note};
use super::refusals::ModerationError;
use super::{MatchError, Matches};
use crate::store::moderation::{OperatorAction, QueuedReport, Resolved};
use crate::time_source::rfc3339;

/// The most reports the queue lists at once.
pub const QUEUE_LENGTH: i64 = 500;

/// Entries of the log shown before a reported message, and after it.
const CONTEXT_BEFORE: i64 = 8;
const CONTEXT_AFTER: i64 = 4;

/// The most characters of an outcome or an operator's name.
const MOST_OUTCOME_CHARACTERS: usize = 500;
const MOST_OPERATOR_CHARACTERS: usize = 64;

/// A report with what an operator needs to judge it: for a message, the talk and play around
/// it, each line with its event number and speaker.
pub struct ReportInContext {
    /// The report.
    pub queued: QueuedReport,
    /// The log around the reported message (empty for an account or a match).
    pub context: Vec<ContextLine>,
}

/// One entry of a match's log, as an operator reads it.
pub struct ContextLine {
    /// Its event number.
    pub seq: i64,
    /// When it was written (Unix seconds).
    pub at: i64,
    /// `seat 1 (leo) says: …`, or the entry's type.
    pub text: String,
    /// Whether it is the reported message.
    pub reported: bool,
}

impl Matches {
    /// The open reports, oldest first (`every`: the resolved ones after them).
    pub async fn report_queue(&self, every: bool) -> Result<Vec<QueuedReport>, MatchError> {
        Ok(self.db.report_queue(every, QUEUE_LENGTH).await?)
    }

    /// Report `id` with the reported message in its context.
    pub async fn report_in_context(&self, id: &str) -> Result<ReportInContext, MatchError> {
        let queued = self
            .db
            .queued_report(id)
            .await?
            .ok_or_else(|| ModerationError::UnknownReport(id.to_owned()))?;
        let context = match (&queued.report.match_id, queued.report.seq) {
            (Some(match_id), Some(seq)) => self.context_of(match_id, seq).await?,
            _ => Vec::new(),
        };
        Ok(ReportInContext { queued, context })
    }

    /// Resolves report `id` with `outcome` (which its reporter reads), recorded in the audit log
    /// as `operator`'s action.
    pub async fn resolve_report(
        &self,
        id: &str,
        outcome: &str,
        operator: &str,
    ) -> Result<(), MatchError> {
        let action = OperatorAction {
            at: self.clock.now(),
            operator: checked_operator(operator)?,
            action: "resolve_report".to_owned(),
            target: id.to_owned(),
            reason: checked_words("outcome", outcome, MOST_OUTCOME_CHARACTERS)?,
        };
        let action_id = uuid::Uuid::new_v4().to_string();
        match self
            .db
            .resolve_report(id, &action.reason, &action, &action_id)
            .await?
        {
            Resolved::Now => Ok(()),
            Resolved::Before(at) => Err(ModerationError::AlreadyResolved {
                id: id.to_owned(),
                at: rfc3339(at),
            }
            .into()),
            Resolved::Unknown => Err(ModerationError::UnknownReport(id.to_owned()).into()),
        }
    }

    /// The newest `limit` operator actions, newest first.
    pub async fn operator_actions(&self, limit: i64) -> Result<Vec<OperatorAction>, MatchError> {
        Ok(self.db.operator_actions(limit).await?)
    }

    /// The entries of `match_id`'s log around `seq`.
    async fn context_of(&self, match_id: &str, seq: i64) -> Result<Vec<ContextLine>, MatchError> {
        let seats = self.db.seats(match_id).await?;
        let name = |seat: u8| {
            seats
                .iter()
                .find(|taken| taken.seat == seat)
                .map_or_else(|| "?".to_owned(), |taken| taken.username.clone())
        };
        let first = (seq - CONTEXT_BEFORE).max(1);
        let recorded = self
            .ledger
            .recorded(match_id, first - 1, CONTEXT_BEFORE + CONTEXT_AFTER + 1)
            .await?;
        Ok(recorded
            .into_iter()
            .filter(|recorded| recorded.seq <= seq + CONTEXT_AFTER)
            .map(|recorded| {
                let text = match &recorded.event {
                    Entry::Note(Note::TableTalk { seat, text }) => {
                        format!("seat {seat} ({}) says: {text}", name(*seat))
                    }
                    Entry::Note(Note::Nudged { seat, by }) => {
                        format!("seat {by} ({}) nudges seat {seat}", name(*by))
                    }
                    // Only the kind of any other entry: an operator reads talk, not hands.
                    other => serde_json::to_value(other)
                        .ok()
                        .and_then(|entry| entry["type"].as_str().map(str::to_owned))
                        .unwrap_or_default(),
                };
                ContextLine {
                    seq: recorded.seq,
                    at: recorded.at,
                    text,
                    reported: recorded.seq == seq,
                }
            })
            .collect())
    }
}

/// An operator's name as recorded: 1–64 characters, no control characters.
fn checked_operator(operator: &str) -> Result<String, MatchError> {
    checked_words("operator", operator, MOST_OPERATOR_CHARACTERS)
}

/// Words as recorded: not empty, at most `most` characters, no control characters.
fn checked_words(field: &'static str, words: &str, most: usize) -> Result<String, MatchError> {
    let words = words.trim();
    let refuse = |detail: String| Err(ModerationError::InvalidAction { field, detail }.into());
    if words.is_empty() {
        return refuse(format!("The {field} says something: it is empty."));
    }
    if words.chars().count() > most {
        return refuse(format!("The {field} is at most {most} characters."));
    }
    if words.chars().any(char::is_control) {
        return refuse(format!("The {field} holds no control characters."));
    }
    Ok(words.to_owned())
}

impl fmt::Display for QueuedReport {
    /// One line of the queue: id, when, what about, why, who reported, and its status.
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = &self.report;
        let target = match (report.about.as_str(), &report.username, &report.match_id) {
            ("account", Some(username), _) => format!("account {username}"),
            ("match", _, Some(match_id)) => format!("match {match_id}"),
            ("message", username, Some(match_id)) => format!(
                "message {match_id}#{} by {}",
                report.seq.unwrap_or(0),
                username.as_deref().unwrap_or("?")
            ),
            (about, _, _) => about.to_owned(),
        };
        write!(
            out,
            "{}  {}  {target}  {}  by {}  {}",
            report.id,
            rfc3339(report.created_at),
            report.reason,
            self.reporter,
            report.status
        )
    }
}

impl fmt::Display for ReportInContext {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(out, "{}", self.queued)?;
        let report = &self.queued.report;
        if !report.note.is_empty() {
            writeln!(out, "note: {}", report.note)?;
        }
        if let (Some(outcome), Some(at)) = (&report.outcome, report.resolved_at) {
            writeln!(out, "resolved {}: {outcome}", rfc3339(at))?;
        }
        for line in &self.context {
            let mark = if line.reported { ">" } else { " " };
            writeln!(
                out,
                "{mark} {:>5}  {}  {}",
                line.seq,
                rfc3339(line.at),
                line.text
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for OperatorAction {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "{}  {}  {} {}  {}",
            rfc3339(self.at),
            self.operator,
            self.action,
            self.target,
            self.reason
        )
    }
}
