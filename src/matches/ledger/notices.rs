//! What a match tells its players while they are away: the notices a change causes, each
//! addressed to the account it concerns, written with the change (see
//! [`crate::notifications`]).
//!
//! - a start: `match_started` to every seat;
//! - a seat leaving: `seat_out` to every seat but one that resigned (it knows);
//! - a reminder: `deadline_near` to the seat to move; a nudge: `nudged` to it;
//! - a vacation's start or early end: `vacation_started` or `vacation_ended` to the other seats;
//! - the end: `match_finished` to every seat, with the result;
//! - then, while the match goes on, `your_turn` to the seat whose turn began;
//!
//! Before the start, `seat_joined` and `seat_left` are told by `matches/seat_notices.rs`.

use super::MatchState;
use crate::matches::log::{Entry, Note};
use crate::model::Outcome;
use crate::notifications::notice::{
    DeadlineNear, MatchFinished, MatchStarted, Notice, Nudged, SeatOut, VacationChanged, YourTurn,
};
use crate::rules::{Event, OutReason, Seat, Status};
use crate::store::notifications::NewNotification;
use crate::store::ratings::RatingUpdate;
use crate::time_source::rfc3339;

/// The notices of a change from `before` to `after` through `entries`, written at `now`.
/// `turn_began`: whether a turn began (another seat's, or the same seat's again); `ratings`:
/// the rating changes of a rated match's end.
#[allow(clippy::too_many_arguments)]
pub(super) fn of_change(
    match_id: &str,
    before: &MatchState,
    after: &MatchState,
    entries: &[Entry],
    turn_began: bool,
    outcome: Option<Outcome>,
    ratings: Option<&RatingUpdate>,
    now: i64,
) -> Vec<NewNotification> {
    let table = &after.table;
    let every_seat = || (0..table.seat_count()).map(|seat| seat as Seat);
    let mut notices: Vec<(Seat, Notice)> = Vec::new();
    if before.state.status() == Status::NotStarted && after.state.status() != Status::NotStarted {
        notices.extend(every_seat().map(|seat| {
            let started = MatchStarted {
                match_id: match_id.to_owned(),
                version: after.version,
                seat,
            };
            (seat, Notice::MatchStarted(started))
        }));
    }
    for entry in entries {
        match entry {
            Entry::Game(Event::SeatOut { seat, reason, .. }) => {
                let out = SeatOut {
                    match_id: match_id.to_owned(),
                    version: after.version,
                    seat: *seat,
                    reason: *reason,
                };
                notices.extend(
                    every_seat()
                        .filter(|told| !(told == seat && *reason == OutReason::Resign))
                        .map(|told| (told, Notice::SeatOut(out.clone()))),
                );
            }
            Entry::Note(Note::DeadlineNear { seat, deadline }) => {
                let near = DeadlineNear {
                    match_id: match_id.to_owned(),
                    version: after.version,
                    seat: *seat,
                    deadline: deadline.clone(),
                };
                notices.push((*seat, Notice::DeadlineNear(near)));
            }
            Entry::Note(Note::Nudged { seat, by }) => {
                let nudged = Nudged {
                    match_id: match_id.to_owned(),
                    version: after.version,
                    seat: *seat,
                    by: *by,
                };
                notices.push((*seat, Notice::Nudged(nudged)));
            }
            Entry::Note(
                note @ (Note::VacationStarted { seat, .. } | Note::VacationEnded { seat }),
            ) => {
                let until = match note {
                    Note::VacationStarted { until, .. } => Some(until.clone()),
                    _ => None,
                };
                let changed = VacationChanged {
                    match_id: match_id.to_owned(),
                    version: after.version,
                    seat: *seat,
                    until,
                };
                let notice = if changed.until.is_some() {
                    Notice::VacationStarted(changed)
                } else {
                    Notice::VacationEnded(changed)
                };
                notices.extend(
                    every_seat()
                        .filter(|told| told != seat)
                        .map(|told| (told, notice.clone())),
                );
            }
            _ => {}
        }
    }
    if let Some(ended_by) = outcome {
        let state = &after.state;
        notices.extend(every_seat().map(|seat| {
            let finished = MatchFinished {
                match_id: match_id.to_owned(),
                version: after.version,
                seat,
                ended_by,
                winners: state.winners().map(<[Seat]>::to_vec).unwrap_or_default(),
                final_totals: state.totals().to_vec(),
                rating: ratings.and_then(|update| update.result_of(seat)),
            };
            (seat, Notice::MatchFinished(finished))
        }));
    }
    if let Some(seat) = after.state.turn()
        && turn_began
        && after.state.status() == Status::Playing
    {
        let deadline = after.clock.as_ref().and_then(|clock| clock.deadline());
        let turn = YourTurn {
            match_id: match_id.to_owned(),
            version: after.version,
            seat,
            deadline: deadline.map(|(_, deadline)| rfc3339(deadline)),
        };
        notices.push((seat, Notice::YourTurn(turn)));
    }
    // Bots are told nothing: they play when a server process finds their turn.
    notices
        .into_iter()
        .filter(|(seat, _)| table.bot_at(*seat).is_none())
        .filter_map(|(seat, notice)| {
            table
                .account_at(seat)
                .map(|account_id| notice.to(account_id, now))
        })
        .collect()
}
