//! Rated tables (docs/ratings.md): which tables may be rated, and the ratings the end of a
//! rated match writes in the transaction that ends it.
//!
//! A rated table is one where the result says something about the players and nothing
//! else: a clock (nobody stalls a lost match forever), late seats claimed or forfeited (no
//! bot plays for anyone), people in every seat, a preset's rules unchanged but for the number
//! of seats (each preset is one pool), and no hints. And a rated match's end is rated only
//! when it says something about the play ([`counts`]): a seat that left before it took a turn
//! of its own played nothing, and rating its exit would let a second account hand the first
//! points at will (issue 35, finding 2).

use std::fmt;

use super::cache::MatchState;
use super::export::{MatchExport, Verified};
use super::{MatchError, Matches};
use crate::model::{ClockSettings, OnTimeout};
use crate::ratings::{Model, Rating, START};
use crate::rules::{GameState, Preset, Rules, Seat};
use crate::store::ratings::{RatingChange, RatingUpdate, Standing};

/// Why a table asked for as rated cannot be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrateable {
    /// It has no clock.
    NoClock,
    /// Its late seats are played by a bot (`on_timeout: bot`).
    StandIns,
    /// It seats bots.
    Bots,
    /// Its rules are not a preset's.
    NotAPreset,
    /// It lets players ask for hints.
    Hints,
}

impl Unrateable {
    /// The problem's stable code.
    pub fn code(self) -> &'static str {
        match self {
            Unrateable::NoClock => "rated_needs_clock",
            Unrateable::StandIns => "rated_needs_claim_or_forfeit",
            Unrateable::Bots => "rated_needs_people",
            Unrateable::NotAPreset => "rated_needs_preset_rules",
            Unrateable::Hints => "rated_without_hints",
        }
    }

    /// The request field at fault.
    pub fn field(self) -> &'static str {
        match self {
            Unrateable::NoClock => "clock",
            Unrateable::StandIns => "on_timeout",
            Unrateable::Bots => "bots",
            Unrateable::NotAPreset => "rules",
            Unrateable::Hints => "hints",
        }
    }
}

impl fmt::Display for Unrateable {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Unrateable::NoClock => "A rated table needs a clock.",
            Unrateable::StandIns => {
                "A rated table needs on_timeout `claim` or `forfeit`: no bot plays a late turn."
            }
            Unrateable::Bots => "A rated table seats people only.",
            Unrateable::NotAPreset => {
                "A rated table plays a preset's rules unchanged (only the number of seats may differ)."
            }
            Unrateable::Hints => "A rated table plays without hints.",
        })
    }
}

/// What a new table asked to be rated asks for.
pub(super) struct TableAsked<'a> {
    pub rules: &'a Rules,
    pub clock: Option<&'a ClockSettings>,
    pub on_timeout: Option<OnTimeout>,
    pub bots: usize,
    pub hints: Option<bool>,
}

/// The pool a table asked to be rated counts in, or why it cannot be rated.
pub(super) fn pool_of(asked: &TableAsked<'_>) -> Result<Preset, MatchError> {
    let refuse = |why| Err(MatchError::NotRateable(why));
    if asked.clock.is_none() {
        return refuse(Unrateable::NoClock);
    }
    if asked.on_timeout == Some(OnTimeout::Bot) {
        return refuse(Unrateable::StandIns);
    }
    if asked.bots > 0 {
        return refuse(Unrateable::Bots);
    }
    if asked.hints == Some(true) {
        return refuse(Unrateable::Hints);
    }
    Preset::of(asked.rules).ok_or(MatchError::NotRateable(Unrateable::NotAPreset))
}

/// The ratings after a rated match: each seat's change from `before` (its rating and count,
/// by seat) at `places` (by seat). The one computation both the server and the rebuild make.
pub fn rate(pool: Preset, accounts: &[String], places: &[u8], before: &[Standing]) -> RatingUpdate {
    let seats: Vec<_> = before
        .iter()
        .zip(places)
        .map(|(standing, place)| (standing.rating, *place))
        .collect();
    let after = Model::SERVER.rate(&seats);
    RatingUpdate {
        pool,
        changes: (0..accounts.len())
            .map(|seat| RatingChange {
                account_id: accounts[seat].clone(),
                seat: seat as Seat,
                place: places[seat],
                before: before[seat],
                after: after[seat],
            })
            .collect(),
    }
}

/// A new player's standing in a pool.
pub const UNRATED: Standing = Standing {
    rating: START,
    matches: 0,
};

/// Whether a rated match that ended at `end` is rated: not when a seat left it (resigned,
/// timed out or was claimed) before it had taken a turn of its own (docs/ratings.md, "Which
/// ends are rated"). The server, `ratings rebuild` and `verify --rate` all ask this.
pub fn counts(end: &GameState) -> bool {
    end.left_before_taking_a_turn().next().is_none()
}

/// Why a rated match's end is not rated, in words (`None` when it is).
pub fn unrated_because(end: &GameState) -> Option<String> {
    let early: Vec<String> = end
        .left_before_taking_a_turn()
        .map(|seat| seat.to_string())
        .collect();
    (!early.is_empty()).then(|| {
        format!(
            "seat {} left before taking a turn of its own: the match ends unrated (docs/ratings.md)",
            early.join(", seat ")
        )
    })
}

impl Matches {
    /// The ratings a move that takes a rated match from `current` to `next` writes: `None`
    /// unless it ends the match, and ends it rated (an aborted match, or one a seat left
    /// before its first turn was over, is not rated).
    pub(super) async fn rating_update(
        &self,
        current: &MatchState,
        next: &MatchState,
    ) -> Result<Option<RatingUpdate>, MatchError> {
        let Some(pool) = next.table.rating_pool else {
            return Ok(None);
        };
        if current.state.standings().is_some() {
            return Ok(None);
        }
        let Some(places) = next.state.standings() else {
            return Ok(None);
        };
        if !counts(&next.state) {
            return Ok(None);
        }
        let accounts: Vec<String> = (0..next.table.seat_count())
            .map(|seat| {
                next.table
                    .account_at(seat as Seat)
                    .map(str::to_owned)
                    .ok_or_else(|| MatchError::Corrupt(format!("rated seat {seat} is empty")))
            })
            .collect::<Result<_, _>>()?;
        let ids: Vec<&str> = accounts.iter().map(String::as_str).collect();
        let known = self.db.standings_of(&ids).await?;
        let before: Vec<Standing> = accounts
            .iter()
            .map(|account| {
                known
                    .get(&(account.clone(), pool))
                    .copied()
                    .unwrap_or(UNRATED)
            })
            .collect();
        Ok(Some(rate(pool, &accounts, &places, &before)))
    }
}

/// Whether a move from `current` to `next` ends a rated match rated (then its ratings are
/// written with it).
pub(super) fn ends_rated(current: &MatchState, next: &MatchState) -> bool {
    next.table.rating_pool.is_some()
        && current.state.standings().is_none()
        && next.state.standings().is_some()
        && counts(&next.state)
}

/// The largest |μ| a `--prior` may give: far beyond any rating play reaches (a displayed
/// rating moves tens of points a match), yet small enough that nothing overflows.
const PRIOR_MU_LIMIT: f64 = 200.0;

/// The largest σ a `--prior` may give: three times a new player's, and no rating grows less
/// certain than a new player's.
const PRIOR_SIGMA_LIMIT: f64 = 25.0;

/// What `kings-corner verify --rate` prints: the rating change a verified export's result
/// implies in its preset's pool, from `priors` (`SEAT=MU,SIGMA`; a seat not given starts as a
/// new player), one line per seat. Refused for rules that are no preset's, a malformed prior,
/// or an aborted match.
pub fn implied(
    export: &MatchExport,
    verified: &Verified,
    priors: &[String],
) -> Result<Vec<String>, String> {
    let pool = Preset::of(&export.rules)
        .ok_or("the match's rules are no preset's: it could not have been rated")?;
    if verified.standings.is_empty() {
        return Err("the match was aborted: it is not rated".into());
    }
    if let Some(why) = &verified.unrated_because {
        return Err(why.clone());
    }
    let seats = verified.standings.len();
    let mut before = vec![UNRATED; seats];
    for prior in priors {
        let parsed = prior.split_once('=').and_then(|(seat, rating)| {
            let seat: usize = seat.trim().parse().ok()?;
            let (mu, sigma) = rating.split_once(',')?;
            let rating = Rating {
                mu: mu.trim().parse().ok()?,
                sigma: sigma.trim().parse().ok()?,
            };
            (seat < seats
                && rating.mu.abs() <= PRIOR_MU_LIMIT
                && rating.sigma > 0.0
                && rating.sigma <= PRIOR_SIGMA_LIMIT)
                .then_some((seat, rating))
        });
        let (seat, rating) = parsed.ok_or_else(|| {
            format!(
                "--prior {prior}: give SEAT=MU,SIGMA, a seat of the match, \
                 |μ| ≤ {PRIOR_MU_LIMIT} and 0 < σ ≤ {PRIOR_SIGMA_LIMIT}"
            )
        })?;
        before[seat] = Standing { rating, matches: 1 };
    }
    let names: Vec<String> = (0..seats)
        .map(|seat| {
            export
                .seats
                .iter()
                .find(|taken| usize::from(taken.seat) == seat)
                .map_or_else(String::new, |taken| taken.username.clone())
        })
        .collect();
    // The usernames stand for the accounts here: they are only printed.
    let update = rate(pool, &names, &verified.standings, &before);
    let mut lines = vec![format!(
        "rating changes in the {} pool (docs/ratings.md):",
        pool.name()
    )];
    for change in &update.changes {
        let (from, to) = (change.before.rating, change.after);
        lines.push(format!(
            "seat {} ({}), place {}: {} -> {} ({:+}); mu {} -> {}, sigma {} -> {}",
            change.seat,
            change.account_id,
            change.place,
            from.displayed(),
            to.displayed(),
            to.displayed() - from.displayed(),
            from.mu,
            to.mu,
            from.sigma,
            to.sigma
        ));
    }
    Ok(lines)
}
