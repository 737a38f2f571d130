//! Table talk: a seated player's words to the table, written into the match's log as a
//! `table_talk` event, so that the feed, the stream and the export carry them in order with
//! the play. Talk changes nothing at the table, so it never makes a move's `expected_version`
//! stale (see [`super::ledger::MatchState::current_for`]). The log is closed at the end of a
//! match (its export is final), so talk is for matches being played.

use serde::Deserialize;
use utoipa::ToSchema;

use super::access::Player;
use super::feed::LoggedEvent;
use super::ledger::retrying_races;
use super::log::{Entry, Note};
use super::refusals::TalkError;
use super::{MatchError, Matches};
use crate::rules::Seat;

/// The most characters a message has.
pub const MOST_CHARACTERS: usize = 500;

/// The most messages one seat says in a minute.
pub const PER_MINUTE: usize = 10;

/// Something to say to the table.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Nice run on the north pile!"}))]
pub struct NewMessage {
    /// Plain text, 1–500 characters, no control characters but line breaks and no
    /// bidirectional embeddings, overrides or isolates (U+202A–U+202E, U+2066–U+2069). It is
    /// never interpreted: clients must show it as text, not as markup.
    #[schema(
        min_length = 1,
        max_length = 500,
        pattern = "^(?:[^\\u0000-\\u0009\\u000B-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]|\\r\\n)*[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069](?:[^\\u0000-\\u0009\\u000B-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]|\\r\\n)*$"
    )]
    pub text: String,
}

impl Matches {
    /// Writes the caller's message into the log of a match being played and answers the feed
    /// item it became. At most [`PER_MINUTE`] messages a minute per seat.
    pub async fn say(
        &self,
        match_id: &str,
        player: Player<'_>,
        message: NewMessage,
    ) -> Result<LoggedEvent, MatchError> {
        let text = checked(message.text)?;
        // Talk fits whatever version the match is at: a lost race is tried again.
        retrying_races(|| async {
            let (current, seat) = self.ledger.seated(match_id, player).await?;
            let current = self.settle_the_clock(match_id, current).await?;
            self.check_pace(match_id, seat).await?;
            let talk = Note::TableTalk {
                seat,
                text: text.clone(),
            };
            let said = LoggedEvent {
                seq: current.version + 1,
                event: talk.checked(&current.state)?,
            };
            self.ledger
                .write(match_id, &current, vec![said.event.clone()], |_| None)
                .await?;
            Ok(said)
        })
        .await
    }

    /// Refuses a seat that said [`PER_MINUTE`] messages in the last minute, saying when it
    /// may speak again. Counted by time from the log, so every process agrees however busy the
    /// table is.
    async fn check_pace(&self, match_id: &str, seat: Seat) -> Result<(), MatchError> {
        let now = self.clock.now();
        let mut said = Vec::new();
        for recorded in self.ledger.recorded_since(match_id, now - 60).await? {
            if matches!(recorded.event, Entry::Note(Note::TableTalk { seat: who, .. }) if who == seat)
            {
                said.push(recorded.at);
            }
        }
        match said.len().checked_sub(PER_MINUTE) {
            None => Ok(()),
            // Talk again once the oldest messages that keep the count at the limit are a minute
            // old.
            Some(over) => Err(MatchError::Talk(TalkError::TooManyMessages {
                retry_after: (said[over] + 60 - now).max(1) as u64,
                per_minute: PER_MINUTE,
            })),
        }
    }
}

/// The text as it is kept (Windows line breaks made plain), or why it cannot be said.
fn checked(text: String) -> Result<String, MatchError> {
    let text = text.replace("\r\n", "\n");
    let refuse = |detail: &str| {
        Err(MatchError::Talk(TalkError::InvalidMessage {
            detail: detail.to_owned(),
        }))
    };
    if text.trim().is_empty() {
        return refuse("A message says something: it is empty.");
    }
    if text.chars().count() > MOST_CHARACTERS {
        return refuse("A message is at most 500 characters.");
    }
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return refuse("A message holds no control characters but line breaks.");
    }
    if text.chars().any(is_bidi_control) {
        return refuse(
            "A message holds no bidirectional embeddings, overrides or isolates \
             (U+202A to U+202E, U+2066 to U+2069).",
        );
    }
    Ok(text)
}

/// The bidirectional embeddings, overrides and isolates: invisible, they reorder the text
/// after them (in a client that shows talk beside names and cards, a message could seem to say
/// what it does not), so talk refuses them. Marks (U+200E, U+200F) stay: they reorder nothing
/// beyond a character.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_may_be_said() {
        assert_eq!(
            checked("gg\r\nwell played".into()).unwrap(),
            "gg\nwell played"
        );
        assert_eq!(checked("é".repeat(500)).unwrap().chars().count(), 500);
        assert!(checked("שלום\u{200F} gg".into()).is_ok());
        let bidi = ["a\u{202A}b", "a\u{202E}b", "a\u{2066}b", "a\u{2069}b"];
        for refused in ["", "  \n ", "bell\u{7}", "tab\there", &"x".repeat(501)]
            .into_iter()
            .chain(bidi)
        {
            assert!(
                matches!(
                    checked(refused.into()),
                    Err(MatchError::Talk(TalkError::InvalidMessage { .. }))
                ),
                "{refused:?}"
            );
        }
    }
}
