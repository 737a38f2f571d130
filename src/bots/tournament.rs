//! The strength ladder: bots against bots on the engine, no server (`kings-corner tournament`).
//!
//! Each deal is played twice with the sides' seats swapped (paired deals), so neither side is
//! luckier in its cards: side A holds the even seats and side B the odd ones, then the other
//! way round. A game is one hand, from the deal to its end. The report gives each side's share
//! of the hands won (a shared win counts by its share) with a 95 % confidence interval, and
//! the mean and 99th percentile of the time one decision took.

use std::time::{Duration, Instant};

use super::{self as bots, Budget, Level};
use crate::model::Named;
use crate::rules::{Event, GameState, Preset, Rules, Seat, Setup, Status};

/// What to play.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// Side A's level.
    pub a: Level,
    /// Side B's level.
    pub b: Level,
    /// Hands to play (rounded up to an even number: each deal is played both ways round).
    pub games: usize,
    /// The rules: a preset's, with `players` seats.
    pub rules: Rules,
    /// Seeds the deals and the bots.
    pub seed: u64,
    /// Threads playing at once.
    pub threads: usize,
    /// The `expert` search budget.
    pub budget: Budget,
}

impl Tournament {
    /// A tournament of `games` hands of `preset` at `players` seats.
    pub fn new(a: Level, b: Level, games: usize, preset: Preset, players: u8) -> Tournament {
        Tournament {
            a,
            b,
            games,
            rules: Rules {
                players,
                ..preset.rules()
            },
            seed: 1,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            budget: Budget::default(),
        }
    }
}

/// One side's results.
#[derive(Clone, Debug)]
pub struct Side {
    /// The side's level.
    pub level: Level,
    /// Hands won (a shared win by its share).
    pub won: f64,
    /// The share of all hands won, and its 95 % confidence interval.
    pub share: f64,
    /// Lower and upper bounds of the 95 % interval of `share`.
    pub interval: (f64, f64),
    /// Mean time one decision took.
    pub mean_decision: Duration,
    /// 99th percentile of the time one decision took.
    pub p99_decision: Duration,
    /// Decisions made.
    pub decisions: usize,
}

/// What a tournament found.
#[derive(Clone, Debug)]
pub struct Report {
    /// Hands played.
    pub hands: usize,
    /// Hands nobody won (blocked with everyone scoring, or a tie for fewest cards).
    pub unwon: usize,
    /// Side A, then side B.
    pub sides: [Side; 2],
}

/// How one hand ended, for side A: its share of the win, and the decision times.
struct Hand {
    a_share: f64,
    b_share: f64,
    times: [Vec<Duration>; 2],
}

impl Tournament {
    /// Plays every hand and reports.
    pub fn run(&self) -> Report {
        let deals = self.games.div_ceil(2);
        let threads = self.threads.clamp(1, deals.max(1));
        let hands: Vec<Hand> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|worker| {
                    scope.spawn(move || {
                        (worker..deals)
                            .step_by(threads)
                            .flat_map(|deal| [self.play(deal, false), self.play(deal, true)])
                            .collect::<Vec<Hand>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| worker.join().expect("a tournament thread panicked"))
                .collect()
        });
        let unwon = hands
            .iter()
            .filter(|hand| hand.a_share + hand.b_share == 0.0)
            .count();
        let side = |index: usize, level: Level| {
            let outcomes: Vec<f64> = hands
                .iter()
                .map(|hand| {
                    if index == 0 {
                        hand.a_share
                    } else {
                        hand.b_share
                    }
                })
                .collect();
            let mut times: Vec<Duration> = hands
                .iter()
                .flat_map(|hand| hand.times[index].iter().copied())
                .collect();
            summarize(level, &outcomes, &mut times)
        };
        Report {
            hands: hands.len(),
            unwon,
            sides: [side(0, self.a), side(1, self.b)],
        }
    }

    /// The first hand of deal `deal`, side A in the even seats (the odd ones when `swapped`).
    fn play(&self, deal: usize, swapped: bool) -> Hand {
        let mut secret = [0u8; 32];
        secret[..8].copy_from_slice(&self.seed.to_le_bytes());
        secret[8..16].copy_from_slice(&(deal as u64).to_le_bytes());
        let players = self.rules.players;
        let mut state = GameState::new(Setup {
            rules: self.rules.clone(),
            secret,
            client_seeds: vec![String::new(); usize::from(players)],
            first_dealer: None,
        })
        .expect("the tournament's rules are valid");
        let side_of = |seat: Seat| usize::from((seat % 2 == 1) != swapped);
        let levels = [self.a, self.b];
        let mut times = [Vec::new(), Vec::new()];
        let mut step = 0u64;
        let mut pending = state.start().expect("a new match starts");
        loop {
            for event in &pending {
                if let Event::HandEnded(result) = event {
                    let mut shares = [0.0; 2];
                    for winner in &result.winners {
                        shares[side_of(*winner)] += 1.0 / result.winners.len() as f64;
                    }
                    return Hand {
                        a_share: shares[0],
                        b_share: shares[1],
                        times,
                    };
                }
                state.apply(event);
            }
            if state.status() != Status::Playing {
                unreachable!("a hand always ends with its own event before the match does");
            }
            let seat = state.turn().expect("a seat to move while playing");
            let side = side_of(seat);
            let knowledge = state.knowledge(seat);
            let seed = self.seed ^ ((deal as u64) << 32) ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            step += 1;
            let started = Instant::now();
            let decision = bots::decide_within(levels[side], &knowledge, seed, self.budget)
                .expect("the seat to move has a legal action");
            times[side].push(started.elapsed());
            pending = state
                .decide(seat, decision.action)
                .expect("a bot only sends legal actions");
        }
    }
}

fn summarize(level: Level, outcomes: &[f64], times: &mut [Duration]) -> Side {
    let hands = outcomes.len().max(1) as f64;
    let won: f64 = outcomes.iter().sum();
    let share = won / hands;
    let variance = outcomes
        .iter()
        .map(|outcome| (outcome - share).powi(2))
        .sum::<f64>()
        / (hands - 1.0).max(1.0);
    let half_width = 1.96 * (variance / hands).sqrt();
    times.sort_unstable();
    let mean_decision = if times.is_empty() {
        Duration::ZERO
    } else {
        times.iter().sum::<Duration>() / times.len() as u32
    };
    let p99_decision = times
        .get((times.len() * 99 / 100).min(times.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default();
    Side {
        level,
        won,
        share,
        interval: ((share - half_width).max(0.0), (share + half_width).min(1.0)),
        mean_decision,
        p99_decision,
        decisions: times.len(),
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(out, "{} hands ({} won by nobody)", self.hands, self.unwon)?;
        for (name, side) in ["A", "B"].iter().zip(&self.sides) {
            writeln!(
                out,
                "{name} {:<7} won {:>7.1} hands: {:5.1} % (95 % CI {:.1}–{:.1} %); \
                 decision mean {:.3} ms, p99 {:.3} ms over {} decisions",
                side.level.name(),
                side.won,
                side.share * 100.0,
                side.interval.0 * 100.0,
                side.interval.1 * 100.0,
                side.mean_decision.as_secs_f64() * 1000.0,
                side.p99_decision.as_secs_f64() * 1000.0,
                side.decisions,
            )?;
        }
        Ok(())
    }
}
