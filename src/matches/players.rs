//! Player pages: what an account has played, won and left, overall and by preset, as anybody
//! may see it. Counts only, and of public matches only: private matches stay invisible to
//! everyone outside them, so they count on a page only when the player reads their own.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

use super::access::Viewer;
use super::{MatchError, Matches};
use crate::model::{MatchStatus, Visibility};
use crate::ratings::RatingShown;
use crate::rules::{Event, OutReason, Preset, Rules};

/// What a player has done at the tables.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "username": "maya", "member_since": "2026-11-18T11:06:40Z",
    "matches": {"played": 12, "won": 5, "resigned": 1, "timed_out": 0, "aborted": 1, "playing": 2},
    "by_preset": [
        {"preset": "standard", "played": 9, "won": 4, "resigned": 1, "timed_out": 0, "aborted": 1, "playing": 1},
        {"preset": "custom", "played": 3, "won": 1, "resigned": 0, "timed_out": 0, "aborted": 0, "playing": 1}
    ],
    "private_included": false,
    "ratings": [{"pool": "standard", "rating": 1187, "provisional": true, "mu": 25.52, "sigma": 6.95,
        "matches": 10, "history": [{"match_id": "0b6f3c4e-8d3a-4c53-9a8e-3f1f0a7f2b11", "place": 1,
        "before": {"rating": 1131, "provisional": true, "mu": 24.9, "sigma": 7.1},
        "after": {"rating": 1187, "provisional": true, "mu": 25.52, "sigma": 6.95},
        "change": 56, "at": "2026-12-01T18:20:00Z"}]}]
}))]
pub struct PlayerPage {
    /// The username, as registered.
    pub username: String,
    /// When the account was created (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub member_since: i64,
    /// Every public match the player sat in; private ones too when `private_included`.
    pub matches: Tally,
    /// The same by the preset each table's rules are (`custom` for any other rules), most
    /// played first.
    pub by_preset: Vec<PresetTally>,
    /// `true` when the player reads their own page: their private matches are counted too.
    pub private_included: bool,
    /// The player's rating in each pool they have played a rated match in (docs/ratings.md),
    /// each with its newest changes.
    pub ratings: Vec<PoolRatingPage>,
}

/// A player's rating in one pool.
#[derive(Serialize, ToSchema)]
pub struct PoolRatingPage {
    /// The pool: the preset its matches play.
    pub pool: Preset,
    /// The rating now.
    #[serde(flatten)]
    pub rating: RatingShown,
    /// Rated matches behind it.
    pub matches: i64,
    /// The newest changes the reader may see, newest first (at most [`HISTORY_SHOWN`]): a
    /// private match's change only to its players.
    pub history: Vec<RatingHistoryEntry>,
}

/// One rated match's change of a player's rating.
#[derive(Serialize, ToSchema)]
pub struct RatingHistoryEntry {
    /// The match. A private match's change is shown only to the players who sat in it.
    #[schema(format = Uuid)]
    pub match_id: String,
    /// The player's place in it, 1 the best.
    pub place: u8,
    /// The rating before the match.
    pub before: RatingShown,
    /// The rating after it.
    pub after: RatingShown,
    /// `after.rating − before.rating`.
    pub change: i64,
    /// When it was rated (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub at: i64,
}

/// How many of a pool's newest rating changes a player page shows.
pub const HISTORY_SHOWN: i64 = 50;

/// Counts of matches.
#[derive(Clone, Copy, Default, Serialize, ToSchema)]
pub struct Tally {
    /// Matches that ended, by their end or by the others leaving (aborted ones aside).
    pub played: u32,
    /// Of those, the ones the player won (alone or sharing the win).
    pub won: u32,
    /// Matches the player resigned from.
    pub resigned: u32,
    /// Matches the player was forfeited from on time.
    pub timed_out: u32,
    /// Matches called off before their first action.
    pub aborted: u32,
    /// Matches being played now.
    pub playing: u32,
}

/// A [`Tally`] for one preset.
#[derive(Serialize, ToSchema)]
pub struct PresetTally {
    /// `standard`, `draw-first`, `foundations`, `night-one`, or `custom`.
    pub preset: String,
    /// The counts.
    #[serde(flatten)]
    pub tally: Tally,
}

impl Matches {
    /// The page of the player called `username`, as `reader` may see it.
    pub async fn player(
        &self,
        username: &str,
        reader: Viewer<'_>,
    ) -> Result<PlayerPage, MatchError> {
        let account = self
            .db
            .account_by_username(username)
            .await?
            .ok_or(MatchError::NoSuchPlayer)?;
        let private_included = reader.account() == Some(account.id.as_str());
        let mut sat_in = self.db.matches_sat_in(&account.id).await?;
        sat_in.retain(|(row, _)| private_included || row.visibility == Visibility::Public);
        let mut left: BTreeMap<String, OutReason> = BTreeMap::new();
        for (match_id, stored) in self.db.seats_out_of(&account.id).await? {
            let seat_of_player = sat_in
                .iter()
                .find(|(row, _)| row.id == match_id)
                .map(|(_, seat)| *seat);
            if let Ok(Event::SeatOut { seat, reason, .. }) = serde_json::from_str(&stored)
                && Some(seat) == seat_of_player
            {
                left.insert(match_id, reason);
            }
        }
        let mut overall = Tally::default();
        let mut by_preset: BTreeMap<&'static str, Tally> = BTreeMap::new();
        for (row, seat) in &sat_in {
            let tally = by_preset.entry(preset_of(&row.rules)).or_default();
            for tally in [&mut overall, tally] {
                match row.status {
                    MatchStatus::Open => continue,
                    MatchStatus::Playing => tally.playing += 1,
                    MatchStatus::Aborted => tally.aborted += 1,
                    MatchStatus::Finished => {
                        tally.played += 1;
                        let won = row.winners.as_ref().is_some_and(|won| won.contains(seat));
                        tally.won += u32::from(won);
                    }
                }
                match left.get(&row.id) {
                    Some(OutReason::Resign) => tally.resigned += 1,
                    Some(OutReason::Timeout) => tally.timed_out += 1,
                    None => {}
                }
            }
        }
        let mut by_preset: Vec<PresetTally> = by_preset
            .into_iter()
            .filter(|(_, tally)| tally.played + tally.aborted + tally.playing > 0)
            .map(|(preset, tally)| PresetTally {
                preset: preset.to_owned(),
                tally,
            })
            .collect();
        by_preset.sort_by_key(|each| std::cmp::Reverse(each.tally.played + each.tally.playing));
        let mut ratings = Vec::new();
        for rated in self.db.ratings_of(&account.id).await? {
            let history = self
                .db
                .rating_history(&account.id, rated.pool, reader.account(), HISTORY_SHOWN)
                .await?
                .into_iter()
                .map(|change| RatingHistoryEntry {
                    match_id: change.match_id,
                    place: change.place,
                    before: change.before.into(),
                    after: change.after.into(),
                    change: change.after.displayed() - change.before.displayed(),
                    at: change.at,
                })
                .collect();
            ratings.push(PoolRatingPage {
                pool: rated.pool,
                rating: rated.standing.rating.into(),
                matches: rated.standing.matches,
                history,
            });
        }
        Ok(PlayerPage {
            username: account.username,
            member_since: account.created_at,
            matches: overall,
            by_preset,
            private_included,
            ratings,
        })
    }
}

/// The preset these rules are (at whatever number of seats), or `custom`.
fn preset_of(rules: &Rules) -> &'static str {
    Preset::of(rules).map_or("custom", Preset::name)
}
