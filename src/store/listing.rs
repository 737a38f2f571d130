//! The listings of matches (the public ones: the lobby and the tables to watch; the caller's
//! matches; the inbox), a page at a time after a cursor.

use super::rows::{ALIASED_MATCH_COLUMNS, MatchRow, match_from_row};
use super::{Db, StoreError};
use crate::model::{MatchStatus, Named};
use crate::store::query;

/// Which matches a listing shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Public matches in one state, newest first: `open` is the lobby (rematches, whose seats
    /// are kept, aside), `playing` the tables to watch.
    Public {
        /// Only matches in this state.
        status: MatchStatus,
    },
    /// The caller's matches (those of one status, if given), newest first.
    Mine {
        /// Only matches in this state.
        status: Option<MatchStatus>,
    },
    /// Matches waiting for the caller's move: the soonest deadline first, then (without a
    /// clock) the longest waiting.
    Inbox,
    /// Public matches in one state (`None`: open or being played) with a player the caller
    /// follows at the table, newest first.
    Followed {
        /// Only matches in this state.
        status: Option<MatchStatus>,
    },
}

impl Listing {
    /// What a listing sorts by (before the match id, which breaks ties).
    pub fn sort_keys(self) -> &'static [&'static str] {
        match self {
            Listing::Public { .. } | Listing::Mine { .. } | Listing::Followed { .. } => {
                &["m.created_at"]
            }
            Listing::Inbox => &[
                "COALESCE(m.deadline, 9223372036854775807)",
                "COALESCE(m.turn_since, 0)",
            ],
        }
    }

    fn newest_first(self) -> bool {
        !matches!(self, Listing::Inbox)
    }

    /// The values of [`Listing::sort_keys`] for a row.
    pub fn keys_of(self, row: &MatchRow) -> Vec<i64> {
        match self {
            Listing::Public { .. } | Listing::Mine { .. } | Listing::Followed { .. } => {
                vec![row.created_at]
            }
            Listing::Inbox => vec![
                row.deadline.unwrap_or(i64::MAX),
                row.turn_since.unwrap_or(0),
            ],
        }
    }
}

/// Where a page of a listing ends: the last row's sort keys and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The values of the listing's sort keys.
    pub keys: Vec<i64>,
    /// The match id.
    pub id: String,
}

impl Db {
    /// A page of matches: those sorting strictly after `cursor`, at most `limit`.
    pub async fn list_matches(
        &self,
        listing: Listing,
        account_id: &str,
        cursor: Option<&Cursor>,
        limit: i64,
    ) -> Result<Vec<MatchRow>, StoreError> {
        let columns = &*ALIASED_MATCH_COLUMNS;
        let seated =
            "EXISTS (SELECT 1 FROM match_seats s WHERE s.match_id = m.id AND s.account_id = $1)";
        let filter = match listing {
            Listing::Public { .. } => "m.visibility = 'public' AND m.status = $2 \
                 AND (m.status <> 'open' OR m.rematch_of IS NULL)"
                .to_owned(),
            Listing::Mine { status: None } => seated.to_owned(),
            Listing::Mine { status: Some(_) } => format!("{seated} AND m.status = $2"),
            Listing::Inbox => "m.status = 'playing' AND EXISTS (SELECT 1 FROM match_seats s \
                 WHERE s.match_id = m.id AND s.account_id = $1 AND s.seat = m.turn_seat)"
                .to_owned(),
            Listing::Followed { status } => {
                let state = match status {
                    Some(_) => "m.status = $2",
                    None => "m.status IN ('open', 'playing')",
                };
                format!(
                    "m.visibility = 'public' AND {state} AND EXISTS (SELECT 1 FROM match_seats s \
                     JOIN follows f ON f.followed_id = s.account_id \
                     WHERE s.match_id = m.id AND f.follower_id = $1)"
                )
            }
        };
        let keys = listing.sort_keys();
        let (direction, beyond) = if listing.newest_first() {
            ("DESC", "<")
        } else {
            ("ASC", ">")
        };
        let order = keys
            .iter()
            .chain(["m.id"].iter())
            .map(|key| format!("{key} {direction}"))
            .collect::<Vec<_>>()
            .join(", ");
        // $1 the account, $2 the status; then the cursor's keys and id; then the limit. Every
        // placeholder appears whichever filters apply (an unused one compared with itself).
        let mut next = 3;
        let cursor_filter = match cursor {
            Some(cursor) if cursor.keys.len() == keys.len() => {
                let placeholders: Vec<String> = (0..=keys.len())
                    .map(|offset| format!("${}", next + offset))
                    .collect();
                next += placeholders.len();
                format!(
                    "({}, m.id) {beyond} ({})",
                    keys.join(", "),
                    placeholders.join(", ")
                )
            }
            _ => "TRUE".to_owned(),
        };
        let sql = format!(
            "SELECT {columns} FROM matches m WHERE ($1 = $1) AND ($2 = $2) AND {filter} \
             AND {cursor_filter} ORDER BY {order} LIMIT ${next}"
        );
        let status = match listing {
            Listing::Mine {
                status: Some(status),
            }
            | Listing::Followed {
                status: Some(status),
            }
            | Listing::Public { status } => status.name(),
            _ => "",
        };
        let mut query = query(&sql).bind(account_id).bind(status);
        if let Some(cursor) = cursor.filter(|cursor| cursor.keys.len() == keys.len()) {
            for key in &cursor.keys {
                query = query.bind(*key);
            }
            query = query.bind(cursor.id.clone());
        }
        let rows = self
            .single(async |connection| query.bind(limit).fetch_all(connection).await)
            .await?;
        rows.iter().map(match_from_row).collect()
    }
}
