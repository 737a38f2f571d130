//! Ratings of rated tables: Weng and Lin's Bayesian approximation with the Plackett-Luce
//! model ("A Bayesian Approximation Method for Online Ranking", JMLR 12, 2011, Algorithm 4),
//! the model OpenSkill rates with by default. Pure: no I/O, nothing of the rest of the crate.
//!
//! A table of three to six players is one game with an order, not a set of duels: the model
//! rates each seat against every seat placed level with or above it. Every seat is a team of
//! one. `docs/ratings.md` gives the formulas, the parameters and a worked example the tests
//! check, so that anyone may recompute a rating from the matches.
//!
//! Written here rather than taken from a crate: `skillratings` (0.29) names its multi-team
//! Weng-Lin "Bradley-Terry": it rates a table as pairs, which agrees with Plackett-Luce at two
//! seats only (at three default ratings in places 1–3 it gives 30.27 / 25.00 / 19.73 where
//! OpenSkill's published Plackett-Luce values are 27.87 / 25.72 / 21.41); `openskill` (0.0.1)
//! is a first release pulling in `nalgebra` and `statrs` for these forty lines.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A player's skill as the model believes it: mean `mu`, uncertainty `sigma`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The skill's mean.
    pub mu: f64,
    /// The skill's standard deviation: how unsure the model is.
    pub sigma: f64,
}

/// Every new player's rating: OpenSkill's defaults, μ 25 and σ 25/3.
pub const START: Rating = Rating {
    mu: 25.0,
    sigma: 25.0 / 3.0,
};

/// The model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// The skill difference that makes the better player win about two games in three
    /// (OpenSkill's default σ₀/2).
    pub beta: f64,
    /// The least share of σ² a game keeps (keeps σ positive).
    pub kappa: f64,
    /// Added to σ (as σ² + τ²) before each game, so that a rating never freezes; 0 in the
    /// published test values.
    pub tau: f64,
}

impl Model {
    /// The server's model: OpenSkill's defaults (β = 25/6, κ = 0.0001, τ = 25/300).
    pub const SERVER: Model = Model {
        beta: 25.0 / 6.0,
        kappa: 0.0001,
        tau: 25.0 / 300.0,
    };

    /// The model of OpenSkill's published test values: the same without τ.
    pub const PUBLISHED: Model = Model {
        tau: 0.0,
        ..Model::SERVER
    };

    /// The ratings after one game: `seats[i]` is the rating before and the place (1 the best,
    /// equal places a tie) of the `i`-th player; the result keeps that order. A game of fewer
    /// than two players changes nothing.
    pub fn rate(&self, seats: &[(Rating, u8)]) -> Vec<Rating> {
        if seats.len() < 2 {
            return seats.iter().map(|(rating, _)| *rating).collect();
        }
        let sigma_sq: Vec<f64> = seats
            .iter()
            .map(|(rating, _)| rating.sigma.mul_add(rating.sigma, self.tau * self.tau))
            .collect();
        let place = |i: usize| seats[i].1;
        let c = sigma_sq
            .iter()
            .map(|sq| sq + self.beta * self.beta)
            .sum::<f64>()
            .sqrt();
        let strength: Vec<f64> = seats
            .iter()
            .map(|(rating, _)| (rating.mu / c).exp())
            .collect();
        let indices = || 0..seats.len();
        // For each seat q: the strengths of q and of every seat placed level with or below it
        // (those it could still have lost to), and how many share its place.
        let field: Vec<f64> = indices()
            .map(|q| {
                indices()
                    .filter(|&i| place(i) >= place(q))
                    .map(|i| strength[i])
                    .sum()
            })
            .collect();
        let sharing: Vec<f64> = indices()
            .map(|q| indices().filter(|&i| place(i) == place(q)).count() as f64)
            .collect();
        indices()
            .map(|i| {
                let (mut omega, mut delta) = (0.0, 0.0);
                for q in indices().filter(|&q| place(q) <= place(i)) {
                    let share = strength[i] / field[q];
                    delta += share * (1.0 - share) / sharing[q];
                    omega += if q == i { 1.0 - share } else { -share } / sharing[q];
                }
                let variance = sigma_sq[i];
                let gamma = variance.sqrt() / c;
                omega *= variance / c;
                delta *= gamma * variance / (c * c);
                Rating {
                    mu: seats[i].0.mu + omega,
                    sigma: variance.sqrt() * (1.0 - delta).max(self.kappa).sqrt(),
                }
            })
            .collect()
    }
}

impl Rating {
    /// The rating players see: 1000 + 40 (μ − 3σ), rounded. μ − 3σ (OpenSkill's "ordinal") is
    /// a skill the model is almost sure the player has, so it starts at 0 (1000 shown) and
    /// rises as games make the model surer, even for a player who loses as often as they win.
    pub fn displayed(&self) -> i64 {
        (1000.0 + 40.0 * (self.mu - 3.0 * self.sigma)).round() as i64
    }

    /// Whether the model is still unsure of the player: σ above [`PROVISIONAL_SIGMA`].
    pub fn provisional(&self) -> bool {
        self.sigma > PROVISIONAL_SIGMA
    }
}

/// A rating as the API shows it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"rating": 1187, "provisional": false, "mu": 25.52, "sigma": 6.45}))]
pub struct RatingShown {
    /// The rating players see: 1000 + 40 (μ − 3σ), rounded (docs/ratings.md).
    pub rating: i64,
    /// Whether the model is still unsure (σ above 6.5): a new player's first matches.
    pub provisional: bool,
    /// The model's mean, exactly as stored.
    pub mu: f64,
    /// The model's uncertainty, exactly as stored.
    pub sigma: f64,
}

impl From<Rating> for RatingShown {
    fn from(rating: Rating) -> RatingShown {
        RatingShown {
            rating: rating.displayed(),
            provisional: rating.provisional(),
            mu: rating.mu,
            sigma: rating.sigma,
        }
    }
}

/// What one rated match did to one player's rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RatedResult {
    /// The rating pool: the preset the match played.
    pub pool: String,
    /// The player's place, 1 the best (docs/rules.md §7.5; equal places tied).
    pub place: u8,
    /// The rating before the match.
    pub before: RatingShown,
    /// The rating after it.
    pub after: RatingShown,
    /// `after.rating − before.rating`.
    pub change: i64,
}

impl RatedResult {
    /// The result of a change in `pool` from `before` to `after` at `place`.
    pub fn new(pool: &str, place: u8, before: Rating, after: Rating) -> RatedResult {
        RatedResult {
            pool: pool.to_owned(),
            place,
            before: before.into(),
            after: after.into(),
            change: after.displayed() - before.displayed(),
        }
    }
}

/// A rating is provisional while its σ is above this: about fifteen rated four-seat matches
/// against new players, fewer against players the model is surer of.
pub const PROVISIONAL_SIGMA: f64 = 6.5;

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: &[Rating], expected: &[(f64, f64)]) {
        assert_eq!(actual.len(), expected.len());
        for (got, (mu, sigma)) in actual.iter().zip(expected) {
            assert!(
                (got.mu - mu).abs() < 1e-9 && (got.sigma - sigma).abs() < 1e-9,
                "{got:?} is not ({mu}, {sigma})"
            );
        }
    }

    fn fresh(places: &[u8]) -> Vec<(Rating, u8)> {
        places.iter().map(|place| (START, *place)).collect()
    }

    /// OpenSkill's published Plackett-Luce values (openskill.js's test suite, repeated in the
    /// `openskill` crate's): players at the default rating in places 1, 2, … .
    #[test]
    fn free_for_alls_at_the_default_rating_give_openskills_published_values() {
        let model = Model::PUBLISHED;
        close(
            &model.rate(&fresh(&[1, 2])),
            &[
                (27.63523138347365, 8.065506316323548),
                (22.36476861652635, 8.065506316323548),
            ],
        );
        close(
            &model.rate(&fresh(&[1, 2, 3])),
            &[
                (27.868876552746237, 8.204837030780652),
                (25.717219138186557, 8.057829747583874),
                (21.413904309067206, 8.057829747583874),
            ],
        );
        close(
            &model.rate(&fresh(&[1, 2, 3, 4])),
            &[
                (27.795084971874736, 8.263160757613477),
                (26.552824984374855, 8.179213704945203),
                (24.68943500312503, 8.083731307186588),
                (20.96265504062538, 8.083731307186588),
            ],
        );
        close(
            &model.rate(&fresh(&[1, 2, 3, 4, 5])),
            &[
                (27.666666666666668, 8.290556877154474),
                (26.833333333333332, 8.240145629781066),
                (25.72222222222222, 8.179996679645559),
                (24.055555555555557, 8.111796013701358),
                (20.72222222222222, 8.111796013701358),
            ],
        );
    }

    /// OpenSkill's published example of players with ratings of their own (openskill.js's
    /// README): four players in places 1 to 4, the last at the default rating.
    #[test]
    fn rated_players_give_openskills_published_example() {
        let rating = |mu, sigma| Rating { mu, sigma };
        let seats = [
            (rating(29.182, 4.782), 1),
            (rating(27.174, 4.922), 2),
            (rating(16.672, 6.217), 3),
            (START, 4),
        ];
        close(
            &Model::PUBLISHED.rate(&seats),
            &[
                (30.209971908310553, 4.764898977359521),
                (27.64460833689499, 4.882789305097372),
                (17.403586731283518, 6.100723440599442),
                (19.214790707434826, 7.8542613981643985),
            ],
        );
    }

    /// docs/ratings.md's worked example is what the server computes.
    #[test]
    fn the_worked_example_of_the_ratings_book_is_what_the_server_computes() {
        let book = include_str!("../docs/ratings.md");
        let after = Model::SERVER.rate(&fresh(&[1, 2, 3]));
        for (seat, rating) in after.iter().enumerate() {
            let row = format!(
                "| {seat} | {} | 25.0000 | 8.3333 | {:.4} | {:.4} | 1000 | {} |",
                seat + 1,
                rating.mu,
                rating.sigma,
                rating.displayed()
            );
            assert!(book.contains(&row), "docs/ratings.md lacks the row {row}");
        }
        for parameter in [
            "| β | 25/6",
            "| κ | 0.0001",
            "| τ | 25/300",
            "σ > 6.5",
            "1000 + 40 (μ − 3σ)",
        ] {
            assert!(
                book.contains(parameter),
                "docs/ratings.md lacks {parameter}"
            );
        }
        assert_eq!(Model::SERVER.beta, 25.0 / 6.0);
        assert_eq!(PROVISIONAL_SIGMA, 6.5);
    }

    /// The order of the list does not matter, only the places.
    #[test]
    fn the_seats_order_does_not_change_the_result() {
        let model = Model::SERVER;
        let one = model.rate(&fresh(&[2, 1, 3]));
        let other = model.rate(&fresh(&[1, 3, 2]));
        assert_eq!(one[0], other[2]);
        assert_eq!(one[1], other[0]);
        assert_eq!(one[2], other[1]);
    }

    /// Equal players who tie stay equal, and a tie between equals moves neither's mean.
    #[test]
    fn a_tie_between_equals_moves_no_mean() {
        let after = Model::SERVER.rate(&fresh(&[1, 1]));
        assert!((after[0].mu - 25.0).abs() < 1e-12);
        assert_eq!(after[0], after[1]);
        assert!(after[0].sigma < START.sigma);
    }

    #[test]
    fn a_new_players_rating_shows_1000_and_is_provisional() {
        assert_eq!(START.displayed(), 1000);
        assert!(START.provisional());
        let sure = Rating {
            mu: 30.0,
            sigma: 2.0,
        };
        assert_eq!(sure.displayed(), 1960);
        assert!(!sure.provisional());
    }

    #[test]
    fn one_player_alone_keeps_their_rating() {
        assert_eq!(Model::SERVER.rate(&fresh(&[1])), vec![START]);
    }
}
