//! A match's clock (issue 8), folded from its log and the times its events were written, so
//! that the server, a client and `kings-corner verify` all arrive at the same deadlines.
//!
//! A turn runs from its `turn_started` event. Its deadline is its start + `turn_seconds` + what
//! is left of the seat's bank; when the turn passes (the next `turn_started`, the seat leaving,
//! the end of a hand or of the match), the time it took beyond `turn_seconds` comes out of the
//! bank. A reminder (`deadline_near`) is due once a tenth of the turn's time is left.
//!
//! Vacations (docs/clocks.md, "Vacations"): from a `vacation_started` note until its `until` (or an
//! earlier `vacation_ended`), the seat's clock stops. Time away does not count against a turn
//! of the seat's that runs meanwhile, so that turn's deadline moves by the time away; a turn
//! that had run out before the vacation began stays run out.
//!
//! Time given (`time_given`, docs/clocks.md): another seat adds the table's turn time to the
//! bank of the seat to move, once a turn; the fold counts no second gift in a turn and none a
//! seat gives itself, so a log that holds one changes no deadline.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::log::{Entry, Note};
use crate::model::{ClockSettings, MOST_VACATION_DAYS, OnTimeout, VACATION_DAY_SECONDS};
use crate::rules::{Event, Seat};
use crate::time_source::{parse_rfc3339, rfc3339};

/// The clock of a match, at some point of its log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchClock {
    settings: ClockSettings,
    on_timeout: OnTimeout,
    /// Whether vacations stop this clock (a correspondence clock, and the table allows them).
    vacations: bool,
    /// Seconds of bank each seat has left (not counting the turn running now).
    banks: Vec<i64>,
    /// The seat to move and when its turn began.
    running: Option<(Seat, i64)>,
    /// Seconds of the running turn its seat spent on vacations that are over.
    paused: i64,
    /// Each seat's latest vacation as the log records it (it may be over).
    away: Vec<Option<Away>>,
    /// Whether the running turn's reminder was written.
    reminded: bool,
    /// Whether a bot took over the running turn (`on_timeout: bot`).
    stood_in: bool,
    /// Whether the running turn was given more time.
    given: bool,
}

/// A seat's vacation: from the time its `vacation_started` note was written until its `until`
/// (Unix seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Away {
    from: i64,
    until: i64,
}

/// What a clock has folded from the log, its settings aside (the match's row gives them
/// again): its part of a match's snapshot (`matches/snapshot.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSnapshot {
    banks: Vec<i64>,
    running: Option<(Seat, i64)>,
    paused: i64,
    away: Vec<Option<Away>>,
    reminded: bool,
    stood_in: bool,
    /// Absent from snapshots written before time could be given.
    #[serde(default)]
    given: bool,
}

/// Why a vacation note does not fit the clock it is written to (`kings-corner verify` names it).
#[derive(Debug, PartialEq, Eq)]
pub enum VacationRefusal {
    /// The table's clock is not one vacations stop.
    NotAllowed,
    /// `until` is not an RFC 3339 time.
    Unreadable,
    /// `until` is not after the note's time, or further than the longest vacation.
    OutOfRange,
    /// A `vacation_ended` for a seat that is not away.
    NotAway,
}

impl std::fmt::Display for VacationRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            VacationRefusal::NotAllowed => "the table's clock is not one vacations stop",
            VacationRefusal::Unreadable => "its end is not an RFC 3339 time",
            VacationRefusal::OutOfRange => {
                "its end is not after its start, or further than the longest vacation"
            }
            VacationRefusal::NotAway => "the seat is not on vacation",
        })
    }
}

impl MatchClock {
    /// What the clock has folded, written out.
    pub fn snapshot(&self) -> ClockSnapshot {
        ClockSnapshot {
            banks: self.banks.clone(),
            running: self.running,
            paused: self.paused,
            away: self.away.clone(),
            reminded: self.reminded,
            stood_in: self.stood_in,
            given: self.given,
        }
    }

    /// This clock (as the match was created) at `snapshot`, if the snapshot has a bank and a
    /// vacation for each seat and runs a seat that exists.
    pub fn resumed(&self, snapshot: ClockSnapshot) -> Option<MatchClock> {
        let seats = self.banks.len();
        let fits = snapshot.banks.len() == seats
            && snapshot.away.len() == seats
            && snapshot
                .running
                .is_none_or(|(seat, _)| usize::from(seat) < seats);
        fits.then(|| MatchClock {
            banks: snapshot.banks,
            running: snapshot.running,
            paused: snapshot.paused,
            away: snapshot.away,
            reminded: snapshot.reminded,
            stood_in: snapshot.stood_in,
            given: snapshot.given,
            ..self.clone()
        })
    }

    /// A clock before the match's first event; `vacations`: whether the table allows them
    /// (only a correspondence clock is ever stopped by one).
    pub fn new(
        settings: ClockSettings,
        on_timeout: OnTimeout,
        vacations: bool,
        seats: u8,
    ) -> MatchClock {
        MatchClock {
            settings,
            on_timeout,
            vacations: vacations && settings.is_correspondence(),
            banks: vec![i64::from(settings.bank_seconds); usize::from(seats)],
            running: None,
            paused: 0,
            away: vec![None; usize::from(seats)],
            reminded: false,
            stood_in: false,
            given: false,
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
            Entry::Note(Note::VacationStarted { seat, until }) => {
                if let Some(until) = parse_rfc3339(until) {
                    self.replace_away(*seat, Some(Away { from: at, until }), at);
                }
                return;
            }
            Entry::Note(Note::VacationEnded { seat }) => {
                self.replace_away(*seat, None, at);
                return;
            }
            Entry::Note(Note::TimeGiven { seat, by, seconds }) => {
                let to_move = self.running.map(|(to_move, _)| to_move);
                if to_move == Some(*seat) && by != seat && !self.given {
                    self.banks[usize::from(*seat)] += i64::from(*seconds);
                    self.given = true;
                }
                return;
            }
            // Other notes (talk, nudges) take no time.
            Entry::Note(_) => return,
        };
        match event {
            Event::TurnStarted { seat } => {
                self.stop(at);
                self.running = Some((*seat, at));
                self.paused = 0;
                self.reminded = false;
                self.stood_in = false;
                self.given = false;
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
        if let Some((seat, since)) = self.running {
            let beyond = self.used(seat, since, at) - i64::from(self.settings.turn_seconds);
            if beyond > 0 {
                let bank = &mut self.banks[usize::from(seat)];
                *bank = (*bank - beyond).max(0);
            }
        }
        self.running = None;
        self.paused = 0;
    }

    /// Sets `seat`'s vacation to `away` at `at`, the time the one it replaces spent during the
    /// seat's running turn kept in `paused`. Not a seat of the table, or no vacations here:
    /// nothing (`verify` refuses such a note before it gets here).
    fn replace_away(&mut self, seat: Seat, away: Option<Away>, at: i64) {
        if !self.vacations || usize::from(seat) >= self.away.len() {
            return;
        }
        if let Some((to_move, since)) = self.running
            && to_move == seat
        {
            self.paused += self.away_during(seat, since, at);
        }
        self.away[usize::from(seat)] = away;
    }

    /// Seconds of `seat`'s latest vacation between `since` and `at`, if it counts against a
    /// turn begun at `since`: not when the turn had run out before the vacation began.
    fn away_during(&self, seat: Seat, since: i64, at: i64) -> i64 {
        let Some(Away { from, until }) = self.away[usize::from(seat)] else {
            return 0;
        };
        let begins = from.max(since);
        if self.run_out_by(seat, since) <= begins {
            return 0;
        }
        (until.min(at) - begins).max(0)
    }

    /// When a turn of `seat`'s begun at `since` runs out counting only the vacations already
    /// over (`paused`).
    fn run_out_by(&self, seat: Seat, since: i64) -> i64 {
        since + i64::from(self.settings.turn_seconds) + self.banks[usize::from(seat)] + self.paused
    }

    /// The seconds a turn of `seat`'s begun at `since` has used by `at`: time away not counted.
    fn used(&self, seat: Seat, since: i64, at: i64) -> i64 {
        at - since - self.paused - self.away_during(seat, since, at)
    }

    /// Whether this clock is one a vacation stops.
    pub fn allows_vacations(&self) -> bool {
        self.vacations
    }

    /// When `seat`'s vacation ends, if it is away at `at`.
    pub fn away_until(&self, seat: Seat, at: i64) -> Option<i64> {
        let away = (*self.away.get(usize::from(seat))?)?;
        (away.until > at).then_some(away.until)
    }

    /// Whether a vacation note written at `at` fits this clock: a clock vacations stop, a
    /// start that ends after it and within the longest vacation, an end for a seat away.
    /// Which seat may be away is the table's to say ([`Note::check`]).
    pub fn admits(&self, note: &Note, at: i64) -> Result<(), VacationRefusal> {
        match note {
            Note::VacationStarted { until, .. } => {
                if !self.vacations {
                    return Err(VacationRefusal::NotAllowed);
                }
                let until = parse_rfc3339(until).ok_or(VacationRefusal::Unreadable)?;
                if until <= at || until - at > MOST_VACATION_DAYS * VACATION_DAY_SECONDS {
                    return Err(VacationRefusal::OutOfRange);
                }
                Ok(())
            }
            Note::VacationEnded { seat } => {
                if !self.vacations {
                    return Err(VacationRefusal::NotAllowed);
                }
                self.away_until(*seat, at)
                    .map(|_| ())
                    .ok_or(VacationRefusal::NotAway)
            }
            _ => Ok(()),
        }
    }

    /// What a passed deadline means at this match.
    pub fn on_timeout(&self) -> OnTimeout {
        self.on_timeout
    }

    /// Whether the turn running now was given more time already.
    pub fn time_given(&self) -> bool {
        self.given
    }

    /// Seconds a gift of time adds: the table's time for a turn.
    pub fn seconds_to_give(&self) -> u32 {
        self.settings.turn_seconds
    }

    /// Whether a bot took over the turn running now.
    pub fn stood_in(&self) -> bool {
        self.stood_in
    }

    /// The seat to move and when it runs out of time (Unix seconds): its turn's time and bank
    /// after the turn began, plus the time it spends away meanwhile (a vacation's whole
    /// length from the turn's start or its own, whichever is later: it is known in advance).
    pub fn deadline(&self) -> Option<(Seat, i64)> {
        self.running.map(|(seat, since)| {
            let away = self.away_during(seat, since, i64::MAX);
            (seat, self.run_out_by(seat, since) + away)
        })
    }

    /// When the seat to move is due its reminder (a tenth of its turn's time left, and not
    /// before it is back from a vacation), unless it was written.
    pub fn reminder_at(&self) -> Option<i64> {
        let (seat, since) = self.running.filter(|_| !self.reminded)?;
        let (_, deadline) = self.deadline()?;
        let whole = i64::from(self.settings.turn_seconds) + self.banks[usize::from(seat)];
        let reminder = deadline - (whole / 10).max(1).min(deadline - since);
        let back = match self.away[usize::from(seat)] {
            Some(Away { until, .. }) if self.away_during(seat, since, i64::MAX) > 0 => until,
            _ => reminder,
        };
        Some(reminder.max(back).min(deadline))
    }

    /// What clients see of the clock at `now`.
    pub fn view(&self, now: i64) -> ClockView {
        let seats = 0..self.banks.len() as Seat;
        let banks = seats
            .clone()
            .map(|seat| self.bank_left(seat, now))
            .collect();
        let away = seats
            .filter_map(|seat| {
                let until = self.away_until(seat, now)?;
                Some(SeatAway {
                    seat,
                    until: rfc3339(until),
                })
            })
            .collect();
        ClockView {
            banks: Some(banks),
            away: Some(away),
            ..ClockView::new(
                self.settings,
                self.on_timeout,
                self.vacations,
                self.deadline().map(|(_, deadline)| deadline),
                now,
            )
        }
    }

    /// The bank a seat has left at `now`, counting the turn it may be taking.
    fn bank_left(&self, seat: Seat, now: i64) -> i64 {
        let bank = self.banks[usize::from(seat)];
        match self.running {
            Some((to_move, since)) if to_move == seat => {
                let beyond = self.used(seat, since, now) - i64::from(self.settings.turn_seconds);
                (bank - beyond.max(0)).max(0)
            }
            _ => bank,
        }
    }
}

/// A seat whose player is on vacation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 1, "until": "2026-12-20T09:30:00Z"}))]
pub struct SeatAway {
    /// The seat.
    pub seat: Seat,
    /// When its vacation ends (RFC 3339), unless its player comes back before.
    #[schema(format = DateTime)]
    pub until: String,
}

/// A match's clock as clients see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "turn_seconds": 86400, "bank_seconds": 172800, "on_timeout": "claim", "vacations": true,
    "deadline": "2026-12-02T09:30:00Z", "banks": [172800, 160000],
    "away": [{"seat": 1, "until": "2026-12-09T09:30:00Z"}], "claimable": false
}))]
pub struct ClockView {
    /// Seconds each turn may take before it draws on the bank.
    pub turn_seconds: u32,
    /// Seconds each seat may spend beyond its turns' seconds, over the whole match.
    pub bank_seconds: u32,
    /// What a passed deadline means.
    pub on_timeout: OnTimeout,
    /// Whether a player's vacation stops their seat's clock here (a correspondence clock at a
    /// table that allows vacations; docs/clocks.md, "Vacations").
    pub vacations: bool,
    /// When the seat to move runs out of time (RFC 3339), its time on vacation counted in;
    /// `null` when no turn runs.
    #[schema(format = DateTime)]
    pub deadline: Option<String>,
    /// Each seat's bank left, in seconds, counting the turn running now (not in listings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub banks: Option<Vec<i64>>,
    /// The seats whose players are on vacation now, and until when (not in listings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub away: Option<Vec<SeatAway>>,
    /// Whether the deadline has passed and another seat may claim (`POST …/claim`).
    pub claimable: bool,
}

impl ClockView {
    /// The clock of settings `settings` whose seat to move runs out at `deadline`, at `now`,
    /// without what only the match's state tells (banks, vacations under way).
    pub fn new(
        settings: ClockSettings,
        on_timeout: OnTimeout,
        vacations: bool,
        deadline: Option<i64>,
        now: i64,
    ) -> ClockView {
        ClockView {
            turn_seconds: settings.turn_seconds,
            bank_seconds: settings.bank_seconds,
            on_timeout,
            vacations: vacations && settings.is_correspondence(),
            deadline: deadline.map(rfc3339),
            banks: None,
            away: None,
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
            true,
            2,
        )
    }

    const DAY: i64 = VACATION_DAY_SECONDS;

    /// A correspondence clock: a day a turn, half a day of bank.
    fn correspondence() -> MatchClock {
        MatchClock::new(
            ClockSettings {
                turn_seconds: DAY as u32,
                bank_seconds: (DAY / 2) as u32,
            },
            OnTimeout::Claim,
            true,
            2,
        )
    }

    fn started(seat: Seat, until: i64) -> Entry {
        Entry::Note(Note::VacationStarted {
            seat,
            until: rfc3339(until),
        })
    }

    fn ended(seat: Seat) -> Entry {
        Entry::Note(Note::VacationEnded { seat })
    }

    #[test]
    fn a_vacation_moves_the_deadline_of_the_turn_it_overlaps_by_its_length() {
        let mut clock = correspondence();
        clock.observe(&Event::TurnStarted { seat: 0 }.into(), 0);
        assert_eq!(clock.deadline(), Some((0, DAY + DAY / 2)));
        // Away for three days from an hour into the turn.
        clock.observe(&started(0, 3_600 + 3 * DAY), 3_600);
        assert_eq!(clock.deadline(), Some((0, 3 * DAY + DAY + DAY / 2)));
        assert_eq!(clock.away_until(0, 3_600), Some(3_600 + 3 * DAY));
        let view = clock.view(2 * DAY);
        assert_eq!(
            view.banks,
            Some(vec![DAY / 2, DAY / 2]),
            "no time used away"
        );
        assert_eq!(view.away.unwrap()[0].seat, 0);
        assert!(!view.claimable);
        // Back after one day: two days of the vacation are not spent, the deadline comes back.
        clock.observe(&ended(0), 3_600 + DAY);
        assert_eq!(clock.deadline(), Some((0, DAY + DAY + DAY / 2)));
        assert_eq!(clock.away_until(0, 3_600 + DAY), None);
        // The turn ends two days in: one day of it was away, so it drew nothing from the bank.
        clock.observe(&Event::TurnStarted { seat: 1 }.into(), 2 * DAY);
        assert_eq!(clock.view(2 * DAY).banks, Some(vec![DAY / 2, DAY / 2]));
    }

    #[test]
    fn a_turn_that_begins_while_its_seat_is_away_waits_for_its_return() {
        let mut clock = correspondence();
        clock.observe(&Event::TurnStarted { seat: 1 }.into(), 0);
        clock.observe(&started(0, 5 * DAY), 10);
        assert_eq!(
            clock.deadline(),
            Some((1, DAY + DAY / 2)),
            "seat 1 is not away"
        );
        clock.observe(&Event::TurnStarted { seat: 0 }.into(), DAY);
        assert_eq!(clock.deadline(), Some((0, 5 * DAY + DAY + DAY / 2)));
        assert!(
            clock.reminder_at().unwrap() >= 5 * DAY,
            "no reminder while away"
        );
        // A vacation that runs to its end needs no note: the turn goes on after it.
        clock.observe(&Event::TurnStarted { seat: 1 }.into(), 6 * DAY + DAY / 4);
        assert_eq!(
            clock.view(6 * DAY + DAY / 4).banks,
            Some(vec![DAY / 4, DAY / 2])
        );
        assert_eq!(clock.view(6 * DAY).away, Some(vec![]));
    }

    #[test]
    fn a_vacation_comes_too_late_for_a_turn_already_run_out() {
        let mut clock = correspondence();
        clock.observe(&Event::TurnStarted { seat: 0 }.into(), 0);
        let run_out = DAY + DAY / 2;
        clock.observe(&started(0, run_out + 3 * DAY), run_out + 10);
        assert_eq!(clock.deadline(), Some((0, run_out)));
        assert!(clock.view(run_out + 20).claimable);
    }

    #[test]
    fn vacation_notes_are_checked_against_the_clock() {
        let mut days = correspondence();
        days.observe(&Event::TurnStarted { seat: 0 }.into(), 0);
        let note = |until: i64| Note::VacationStarted {
            seat: 1,
            until: rfc3339(until),
        };
        assert_eq!(days.admits(&note(DAY), 100), Ok(()));
        assert_eq!(
            days.admits(&note(100), 100),
            Err(VacationRefusal::OutOfRange)
        );
        let too_long = 100 + MOST_VACATION_DAYS * DAY + 1;
        assert_eq!(
            days.admits(&note(too_long), 100),
            Err(VacationRefusal::OutOfRange)
        );
        let back = Note::VacationEnded { seat: 1 };
        assert_eq!(days.admits(&back, 100), Err(VacationRefusal::NotAway));
        days.observe(&Entry::Note(note(DAY)), 100);
        assert_eq!(days.admits(&back, 200), Ok(()));
        assert_eq!(days.admits(&back, DAY), Err(VacationRefusal::NotAway));
        // A clock of minutes is not stopped by vacations, nor one whose table said no.
        assert_eq!(
            clock().admits(&note(DAY), 100),
            Err(VacationRefusal::NotAllowed)
        );
        let refused = MatchClock::new(correspondence().settings, OnTimeout::Claim, false, 2);
        assert_eq!(
            refused.admits(&note(DAY), 100),
            Err(VacationRefusal::NotAllowed)
        );
    }

    #[test]
    fn a_snapshot_keeps_the_vacations() {
        let mut clock = correspondence();
        clock.observe(&Event::TurnStarted { seat: 0 }.into(), 0);
        clock.observe(&started(0, 2 * DAY), 100);
        clock.observe(&ended(0), 200);
        clock.observe(&started(1, 3 * DAY), 300);
        let resumed = correspondence().resumed(clock.snapshot()).unwrap();
        assert_eq!(resumed, clock);
        assert_eq!(resumed.deadline(), Some((0, DAY + DAY / 2 + 100)));
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
