//! Leaderboards: a rating pool's players by the rating they are shown, best first, a page at a
//! time behind an opaque cursor; established players and provisional ones on boards of their
//! own (docs/ratings.md, "Seeing ratings").

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{MatchError, Matches, cursor};
use crate::ratings::{PROVISIONAL_SIGMA, RatingShown};
use crate::rules::Preset;
use crate::store::ratings::BoardCursor;

/// What a leaderboard page asks for.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// `true`: the players whose rating is still provisional (their first rated matches);
    /// `false` (default): the established ones.
    pub provisional: Option<bool>,
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1, max_length = 256, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
    /// Page size, 1–100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// A page of a leaderboard.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"pool": "standard", "provisional": false, "players": [
    {"place": 1, "username": "maya", "rating": 1587, "provisional": false, "mu": 31.2, "sigma": 2.3, "matches": 48}
], "next_cursor": null}))]
pub struct Leaderboard {
    /// The pool: the preset its matches play.
    pub pool: Preset,
    /// Whether this is the board of provisional players.
    pub provisional: bool,
    /// The players, best first.
    pub players: Vec<BoardPlace>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A player's place on a leaderboard.
#[derive(Serialize, ToSchema)]
pub struct BoardPlace {
    /// 1 for the best; players with the same μ − 3σ are ordered by account.
    pub place: i64,
    /// The player.
    pub username: String,
    /// Their rating in the pool.
    #[serde(flatten)]
    pub rating: RatingShown,
    /// Rated matches behind it.
    pub matches: i64,
}

impl Matches {
    /// A page of `pool`'s leaderboard (the pool by its name: a preset's).
    pub async fn leaderboard(
        &self,
        pool: &str,
        query: BoardQuery,
    ) -> Result<Leaderboard, MatchError> {
        let pool = Preset::from_name(pool).ok_or(MatchError::NoSuchPool)?;
        let limit = query.limit.unwrap_or(50);
        if !(1..=100).contains(&limit) {
            return Err(MatchError::invalid_query("limit", "limit is 1 to 100"));
        }
        let cursor = query
            .cursor
            .as_deref()
            .map(|cursor| {
                decode(cursor).ok_or_else(|| {
                    MatchError::invalid_query("cursor", "not a cursor of a leaderboard")
                })
            })
            .transpose()?;
        let provisional = query.provisional.unwrap_or(false);
        let (entries, ahead) = self
            .db
            .leaderboard(pool, provisional, PROVISIONAL_SIGMA, cursor.as_ref(), limit)
            .await?;
        let next_cursor = (entries.len() as i64 == limit)
            .then(|| {
                entries.last().map(|last| {
                    encode(&BoardCursor {
                        ordinal: last.ordinal,
                        account_id: last.account_id.clone(),
                    })
                })
            })
            .flatten();
        let players = (ahead + 1..)
            .zip(entries)
            .map(|(place, entry)| BoardPlace {
                place,
                username: entry.username,
                rating: entry.standing.rating.into(),
                matches: entry.standing.matches,
            })
            .collect();
        Ok(Leaderboard {
            pool,
            provisional,
            players,
            next_cursor,
        })
    }
}

/// A board's cursor: the last entry's μ − 3σ (its bits, exactly, as 16 hex digits) and
/// account, opaque to clients.
fn encode(cursor: &BoardCursor) -> String {
    cursor::encode(
        &format!("{:016x}", cursor.ordinal.to_bits()),
        &cursor.account_id,
    )
}

fn decode(text: &str) -> Option<BoardCursor> {
    let (bits, account_id) = cursor::decode(text)?;
    let bits = u64::from_str_radix(&bits, 16).ok()?;
    let ordinal = f64::from_bits(bits);
    let decoded = BoardCursor {
        ordinal,
        account_id,
    };
    (ordinal.is_finite() && encode(&decoded) == text).then_some(decoded)
}
