//! Private notes (docs/community.md, "Notes"): each player keeps one text of notes per match
//! they have a seat in, read and written by them alone, kept after the match ends. They are the
//! player's own data, never part of the match's log or export.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::Player;
use super::refusals::NoteError;
use super::{MatchError, Matches};

/// The most characters a match's notes hold.
pub const MOST_CHARACTERS: usize = 10_000;

/// Notes to keep.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Leo keeps his kings for the corners: hold the queens."}))]
pub struct NewNotes {
    /// Plain text of at most 10,000 characters; empty removes the notes.
    #[schema(max_length = 10000)]
    pub text: String,
}

/// A player's notes on a match.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"text": "Leo keeps his kings for the corners: hold the queens.", "updated_at": "2026-12-08T09:30:00Z"}))]
pub struct NotesView {
    /// The notes (empty: none).
    pub text: String,
    /// When they were last written (RFC 3339); null for none.
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub updated_at: Option<i64>,
}

impl Matches {
    /// The caller's notes on a match they have a seat in.
    pub async fn notes(&self, match_id: &str, player: Player<'_>) -> Result<NotesView, MatchError> {
        let (read, role) = self.ledger.read_row(match_id, player.viewer()).await?;
        role.acts()?;
        let notes = self.db.notes(&read.row.id, player.id()).await?;
        Ok(match notes {
            Some((text, at)) => NotesView {
                text,
                updated_at: Some(at),
            },
            None => NotesView {
                text: String::new(),
                updated_at: None,
            },
        })
    }

    /// Writes the caller's notes on a match they have a seat in (empty text removes them).
    pub async fn put_notes(
        &self,
        match_id: &str,
        player: Player<'_>,
        notes: NewNotes,
    ) -> Result<NotesView, MatchError> {
        if notes.text.chars().count() > MOST_CHARACTERS {
            return Err(NoteError::TooLong(MOST_CHARACTERS).into());
        }
        let (read, role) = self.ledger.read_row(match_id, player.viewer()).await?;
        role.acts()?;
        let now = self.clock.now();
        self.db
            .put_notes(&read.row.id, player.id(), &notes.text, now)
            .await?;
        let updated_at = (!notes.text.is_empty()).then_some(now);
        Ok(NotesView {
            text: notes.text,
            updated_at,
        })
    }
}
