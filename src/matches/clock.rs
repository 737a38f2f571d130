//! A match's clock (issue 8), folded from its log and the times its events were written, so
//! that the server, a client and `kings-corner verify` all arrive at the same deadlines.
//!
//! A turn runs from its `turn_started` event. Its deadline is its start + `turn_seconds` + what
//! is left of the seat's bank; when the turn passes (the next `turn_started`, the seat leaving,
//! the end of a hand or of the match), the time it took beyond `turn_seconds` comes out of the
//! bank. A reminder (`deadline_near`) is due once a tenth of the turn's time is left.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::log::{Entry, Note};
use crate::clock::rfc3339;
use crate::model::{ClockSettings, OnTimeout};
use crate::rules::{Event, Seat};

/// The clock of a match, at some point of its log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchClock {
    settings: ClockSettings,
    on_timeout: OnTimeout,
    /// Seconds of bank each seat has left (not counting the turn running now).
    banks: Vec<i64>,
    /// The seat to move and when its turn began.
    running: Option<(Seat, i64)>,
    /// Whether the running turn's reminder was written.
    reminded: bool,
    /// Whether a bot took over the running turn (`on_timeout: bot`).
    stood_in: bool,
}

/// What a clock has folded from the log, its settings aside (the match's row gives them
/// again): its part of a match's snapshot (`matches/snapshot.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSnapshot {
    banks: Vec<i64>,
    running: Option<(Seat, i64)>,
    reminded: bool,
    stood_in: bool,
}

impl MatchClock {
    /// What the clock has folded, written out.
    pub fn snapshot(&self) -> ClockSnapshot {
        ClockSnapshot {
            banks: self.banks.clone(),
            running: self.running,
            reminded: self.reminded,
            stood_in: self.stood_in,
        }
    }

    /// This clock (as the match was created) at `snapshot`, if the snapshot has a bank for
    /// each seat and runs a seat that exists.
    pub fn resumed(&self, snapshot: ClockSnapshot) -> Option<MatchClock> {
        let seats = self.banks.len();
        let fits = snapshot.banks.len() == seats
            && snapshot
                .running
                .is_none_or(|(seat, _)| usize::from(seat) < seats);
        fits.then(|| MatchClock {
            banks: snapshot.banks,
            running: snapshot.running,
            reminded: snapshot.reminded,
            stood_in: snapshot.stood_in,
            ..self.clone()
        })
    }

    /// A clock before the match's first event.
    pub fn new(settings: ClockSettings, on_timeout: OnTimeout, seats: u8) -> MatchClock {
        MatchClock {
            settings,
            on_timeout,
            banks: vec![i64::from(settings.bank_seconds); usize::from(seats)],
            running: None,
            reminded: false,
            stood_in: false,
        }
    }

    /// Folds one entry of the log written at `at` (Unix seconds).
    pub fn observe(&mut self, entry: &Entry, at: i64) {
        let event = match entry {
            Entry::Game(event) => event,
            Entry::Note(Note::DeadlineNear { .. }) => {
                self.reminded = true;
                return;
            }
            // Past its deadline: no reminder is due any more.
            Entry::Note(Note::BotStoodIn { .. }) => {
                self.reminded = true;
                self.stood_in = true;
                return;
            }
            // Other notes (talk) take no time.
            Entry::Note(_) => return,
        };
        match event {
            Event::TurnStarted { seat } => {
                self.stop(at);
                self.running = Some((*seat, at));
                self.reminded = false;
                self.stood_in = false;
            }
            Event::SeatOut { seat, .. }
                if self.running.is_some_and(|(to_move, _)| to_move == *seat) =>
            {
                self.stop(at);
            }
            Event::HandEnded(_) | Event::GameEnded { .. } | Event::MatchAborted { .. } => {
                self.stop(at);
            }
            _ => {}
        }
    }

    /// Ends the running turn at `at`: the time beyond its seconds comes out of the bank.
    fn stop(&mut self, at: i64) {
        if let Some((seat, since)) = self.running.take() {
            let beyond = at - since - i64::from(self.settings.turn_seconds);
            if beyond > 0 {
                let bank = &mut self.banks[usize::from(seat)];
                *bank = (*bank - beyond).max(0);
            }
        }
    }

    /// What a passed deadline means at this match.
    pub fn on_timeout(&self) -> OnTimeout {
        self.on_timeout
    }

    /// Whether a bot took over the turn running now.
    pub fn stood_in(&self) -> bool {
        self.stood_in
    }

    /// The seat to move and when it runs out of time (Unix seconds).
    pub fn deadline(&self) -> Option<(Seat, i64)> {
        self.running.map(|(seat, since)| {
            (
                seat,
                since + i64::from(self.settings.turn_seconds) + self.banks[usize::from(seat)],
            )
        })
    }

    /// When the seat to move is due its reminder (a tenth of its turn's time left), unless
    /// it was written.
    pub fn reminder_at(&self) -> Option<i64> {
        let (seat, since) = self.running.filter(|_| !self.reminded)?;
        let (_, deadline) = self.deadline()?;
        let whole = i64::from(self.settings.turn_seconds) + self.banks[usize::from(seat)];
        Some(deadline - (whole / 10).max(1).min(deadline - since))
    }

    /// What clients see of the clock at `now`.
    pub fn view(&self, now: i64) -> ClockView {
        let banks = (0..self.banks.len())
            .map(|seat| self.bank_left(seat as Seat, now))
            .collect();
        ClockView::new(
            self.settings,
            self.on_timeout,
            self.deadline().map(|(_, deadline)| deadline),
            Some(banks),
            now,
        )
    }

    /// The bank a seat has left at `now`, counting the turn it may be taking.
    fn bank_left(&self, seat: Seat, now: i64) -> i64 {
        let bank = self.banks[usize::from(seat)];
        match self.running {
            Some((to_move, since)) if to_move == seat => {
                let beyond = now - since - i64::from(self.settings.turn_seconds);
                (bank - beyond.max(0)).max(0)
            }
            _ => bank,
        }
    }
}

/// A match's clock as clients see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "turn_seconds": 86400, "bank_seconds": 172800, "on_timeout": "claim",
    "deadline": "2026-12-02T09:30:00Z", "banks": [172800, 160000], "claimable": false
}))]
pub struct ClockView {
    /// Seconds each turn may take before it draws on the bank.
    pub turn_seconds: u32,
    /// Seconds each seat may spend beyond its turns' seconds, over the whole match.
    pub bank_seconds: u32,
    /// What a passed deadline means.
    pub on_timeout: OnTimeout,
    /// When the seat to move runs out of time (RFC 3339); `null` when no turn runs.
    #[schema(format = DateTime)]
    pub deadline: Option<String>,
    /// Each seat's bank left, in seconds, counting the turn running now (not in listings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub banks: Option<Vec<i64>>,
    /// Whether the deadline has passed and another seat may claim (`POST …/claim`).
    pub claimable: bool,
}

impl ClockView {
    /// The clock of settings `settings` whose seat to move runs out at `deadline`, at `now`.
    pub fn new(
        settings: ClockSettings,
        on_timeout: OnTimeout,
        deadline: Option<i64>,
        banks: Option<Vec<i64>>,
        now: i64,
    ) -> ClockView {
        ClockView {
            turn_seconds: settings.turn_seconds,
            bank_seconds: settings.bank_seconds,
            on_timeout,
            deadline: deadline.map(rfc3339),
            banks,
            claimable: on_timeout == OnTimeout::Claim
                && deadline.is_some_and(|deadline| now >= deadline),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock() -> MatchClock {
        MatchClock::new(
            ClockSettings {
                turn_seconds: 100,
                bank_seconds: 50,
            },
            OnTimeout::Claim,
            2,
        )
    }

    #[test]
    fn time_beyond_a_turn_comes_out_of_the_bank() {
        let mut clock = clock();
        clock.observe(&Event::TurnStarted { seat: 0 }.into(), 1_000);
        assert_eq!(clock.deadline(), Some((0, 1_150)));
        assert_eq!(clock.reminder_at(), Some(1_135));
        // Seat 0 takes 130 s: 30 beyond its turn.
        clock.observe(&Event::TurnStarted { seat: 1 }.into(), 1_130);
        assert_eq!(clock.deadline(), Some((1, 1_280)));
        clock.observe(&Event::TurnStarted { seat: 0 }.into(), 1_140);
        assert_eq!(clock.deadline(), Some((0, 1_260)), "20 s of bank left");
        assert_eq!(clock.view(1_250).banks, Some(vec![10, 50]));
        assert!(!clock.view(1_259).claimable);
        assert!(clock.view(1_260).claimable);
        clock.observe(
            &Entry::Note(Note::DeadlineNear {
                seat: 0,
                deadline: String::new(),
            }),
            1_250,
        );
        assert_eq!(clock.reminder_at(), None, "written once");
        clock.observe(
            &Event::GameEnded {
                winners: vec![1],
                totals: vec![0, 0],
            }
            .into(),
            1_300,
        );
        assert_eq!(clock.deadline(), None);
        assert_eq!(clock.view(1_300).banks, Some(vec![0, 50]));
    }
}
