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

use super::MatchError;
use super::export::{MatchExport, Verified};
use super::ledger::{UNRATED, rate};
use super::refusals::TableError;
pub use super::unrateable::Unrateable;
use crate::model::{ClockSettings, OnTimeout};
use crate::ratings::Rating;
use crate::rules::{Preset, Rules};
use crate::store::ratings::Standing;

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
    let refuse = |why| Err(MatchError::Table(TableError::NotRateable(why)));
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
    Preset::of(asked.rules).ok_or(MatchError::Table(TableError::NotRateable(
        Unrateable::NotAPreset,
    )))
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
