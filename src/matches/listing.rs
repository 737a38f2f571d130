//! Listing tables: the public ones (the open lobby, or those being played to watch, for anybody),
//! the caller's own matches (by status, with results), their inbox (matches waiting for their
//! move, soonest deadline first) and the public matches of the players they follow, a page at a
//! time behind an opaque cursor.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::access::Viewer;
use super::{MatchError, MatchSummary, Matches, cursor};
use crate::model::MatchStatus;
use crate::store::{self, Cursor, Listing, MatchRow};

/// Most matches on one page of a listing.
const MAX_PAGE: i64 = 100;

/// Which matches to list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `true`: the caller's matches, newest first.
    pub mine: Option<bool>,
    /// `true`: the public matches of the players the caller follows (`GET /v1/me/follows`),
    /// open and being played unless `status` says which, newest first.
    pub followed: Option<bool>,
    /// Only matches `open`, `playing`, `finished` or `aborted`: of the caller's with
    /// `mine=true` (the history with results), else of the public ones (`open`, the default, is
    /// the lobby; `playing`, the tables being played, to watch).
    pub status: Option<MatchStatus>,
    /// `mine`: the caller's inbox, matches waiting for their move, soonest deadline first
    /// (then, without a clock, the longest waiting).
    pub turn: Option<String>,
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1, max_length = 256, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
    /// Page size, 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// A page of matches.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"matches": [], "next_cursor": null}))]
pub struct MatchPage {
    /// The matches.
    pub matches: Vec<MatchSummary>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

impl Matches {
    /// A page of the public matches (anybody's to see), the caller's matches or their inbox.
    pub async fn list(
        &self,
        viewer: Viewer<'_>,
        query: ListQuery,
    ) -> Result<MatchPage, MatchError> {
        if query.followed == Some(true) && (query.mine == Some(true) || query.turn.is_some()) {
            return Err(MatchError::invalid_query(
                "followed",
                "followed lists other players' public matches: not with mine or turn",
            ));
        }
        let listing = match (query.mine, query.turn.as_deref(), query.status) {
            _ if query.followed == Some(true) => Listing::Followed {
                status: query.status,
            },
            (_, Some("mine"), None) => Listing::Inbox,
            (_, Some(_), _) => {
                return Err(MatchError::invalid_query(
                    "turn",
                    "turn takes only `mine`, and lists matches being played: no status",
                ));
            }
            (Some(true), None, status) => Listing::Mine { status },
            (_, None, status) => Listing::Public {
                status: status.unwrap_or(MatchStatus::Open),
            },
        };
        let account = viewer.account();
        if account.is_none() && !matches!(listing, Listing::Public { .. }) {
            return Err(MatchError::AccountNeeded);
        }
        let limit = query.limit.unwrap_or(20);
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(MatchError::invalid_query("limit", "limit is 1 to 100"));
        }
        let cursor = match &query.cursor {
            None => None,
            Some(cursor) => Some(
                decode_cursor(cursor)
                    .filter(|cursor| cursor.keys.len() == listing.sort_keys().len())
                    .ok_or_else(|| {
                        MatchError::invalid_query("cursor", "not a cursor of this listing")
                    })?,
            ),
        };
        let rows = self
            .db
            // The public listings filter by no account (their statement ignores it).
            .list_matches(listing, account.unwrap_or_default(), cursor.as_ref(), limit)
            .await?;
        let next_cursor = (rows.len() as i64 == limit)
            .then(|| rows.last().map(|last| encode_cursor(listing, last)))
            .flatten();
        let ids: Vec<String> = rows.iter().map(|row| row.id.clone()).collect();
        let mut seats = self.db.seats_of(&ids).await?;
        let now = self.clock.now();
        // The ratings of the rated tables' players, in one read.
        let rated: Vec<&str> = rows
            .iter()
            .filter(|row| row.rating_pool.is_some())
            .flat_map(|row| seats.get(&row.id).into_iter().flatten())
            .map(|seat| seat.account_id.as_str())
            .collect();
        let known = self.db.standings_of(&rated).await?;
        let matches = rows
            .iter()
            .map(|row| {
                let seats = seats.remove(&row.id).unwrap_or_default();
                let seated = account.is_some_and(|id| store::seat_of(&seats, id).is_some());
                let mut summary = MatchSummary::new(row, &seats, seated, now);
                summary.show_ratings(&seats, &known);
                summary
            })
            .collect();
        Ok(MatchPage {
            matches,
            next_cursor,
        })
    }
}

/// A listing's cursor: the last row's sort keys and id, opaque to clients.
fn encode_cursor(listing: Listing, last: &MatchRow) -> String {
    cursor::encode(&keys_text(&listing.keys_of(last)), &last.id)
}

fn keys_text(keys: &[i64]) -> String {
    let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
    keys.join(",")
}

fn decode_cursor(text: &str) -> Option<Cursor> {
    let (keys_written, id) = cursor::decode(text)?;
    let keys = keys_written
        .split(',')
        .map(|key| key.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    // `+1` or `01` parse as 1: only the server's own writing is taken back.
    (keys_text(&keys) == keys_written).then_some(Cursor { keys, id })
}
