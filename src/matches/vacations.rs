//! Vacations for correspondence clocks (docs/clocks.md, "Vacations"): an account holds vacation days
//! and spends them on a vacation (`POST /v1/me/vacation`, until a date), during which the clock
//! of each of its seats at a table that allows vacations stops; it may come back before
//! (`DELETE`), and gets back the whole days it did not begin.
//!
//! - **Days**: [`FIRST_VACATION_DAYS`] to start, and one more for each week (Monday to Sunday,
//!   UTC) in which one of the account's turns at a correspondence clock ended, up to
//!   [`MOST_VACATION_DAYS`]. They are counted when the account's vacation is read or changed;
//!   counted late or weekly, the sum is the same, since nothing but a vacation spends them.
//! - **The logs**: each match records a vacation's start (`vacation_started`, with its end)
//!   and an early return (`vacation_ended`) for the seat away, so that the clock, a replay and
//!   `kings-corner verify` all reckon the deadlines from the log alone
//!   ([`super::match_clock::MatchClock`]). The account's change and a mark on each of its matches
//!   are one transaction; any process's round ([`Matches::note_vacations`], leased per match)
//!   then brings each marked log up to date, so none is missed. A match that starts while a
//!   player is away is marked by its start.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::Player;
use super::ledger::MatchState;
use super::ledger::retrying_races;
use super::log::{Entry, Note};
use super::refusals::VacationError;
use super::{MatchError, Matches};
use crate::background::{self, Schedule};
use crate::model::{FIRST_VACATION_DAYS, MOST_VACATION_DAYS, MatchStatus, VACATION_DAY_SECONDS};
use crate::rules::Seat;
use crate::store::vacations::{VacationChange, VacationRow, week_of};
use crate::store::work::Work;
use crate::time_source::{parse_rfc3339, rfc3339};

/// How often each process looks for matches whose logs must record a vacation (a vacation
/// taken through this process wakes it at once).
const ROUND_EVERY: Duration = Duration::from_secs(2);

/// Most matches one round takes on.
const ROUND_BATCH: i64 = 64;

/// A vacation to take.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"until": "2026-12-27T18:00:00Z"}))]
pub struct NewVacation {
    /// When it ends (RFC 3339): in the future, at most 30 days away, and within the days the
    /// account holds (each day begun counts).
    #[schema(format = DateTime)]
    pub until: String,
}

/// The caller's vacation days, and the vacation under way if any.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"days": 8, "most_days": 30, "first_days": 10,
    "vacation": {"from": "2026-12-20T18:00:00Z", "until": "2026-12-27T18:00:00Z"}}))]
pub struct VacationView {
    /// The days the account holds to spend.
    pub days: i64,
    /// The most days an account holds: a week played adds none beyond it.
    pub most_days: i64,
    /// The days a new account starts with.
    pub first_days: i64,
    /// The vacation under way; `null` when the account is not on vacation.
    pub vacation: Option<VacationSpan>,
}

/// A vacation under way.
#[derive(Serialize, ToSchema)]
pub struct VacationSpan {
    /// When it began (RFC 3339).
    #[schema(format = DateTime)]
    pub from: String,
    /// When it ends unless its player comes back before (RFC 3339).
    #[schema(format = DateTime)]
    pub until: String,
}

/// The days `row` holds at `now`, its played weeks counted, and the first week not counted
/// after that (the week of `now`, or the next one if it was played already).
fn counted(row: &VacationRow, now: i64) -> (i64, i64) {
    let this_week = week_of(now);
    let played = row
        .played_weeks
        .iter()
        .filter(|week| (row.weeks_from..=this_week).contains(week))
        .count() as i64;
    let days = (row.days + played).min(MOST_VACATION_DAYS);
    let next = if row.played_weeks.contains(&this_week) {
        this_week + 1
    } else {
        this_week
    };
    (days, next.max(row.weeks_from))
}

/// The days a vacation from `now` until `until` takes: each day begun.
fn days_between(now: i64, until: i64) -> i64 {
    (until - now + VACATION_DAY_SECONDS - 1).div_euclid(VACATION_DAY_SECONDS)
}

/// When `row`'s vacation ends, if it is under way at `now`.
fn away_until(row: &VacationRow, now: i64) -> Option<i64> {
    row.away
        .map(|(_, until)| until)
        .filter(|until| *until > now)
}

/// The end of a vacation asked for at `now`, checked.
fn checked_end(request: &NewVacation, now: i64) -> Result<i64, MatchError> {
    let invalid = |detail: &str| {
        MatchError::Vacation(VacationError::InvalidVacation {
            detail: detail.to_owned(),
        })
    };
    let until = parse_rfc3339(&request.until)
        .ok_or_else(|| invalid("`until` is an RFC 3339 time, such as 2026-12-27T18:00:00Z."))?;
    if until <= now {
        return Err(invalid("A vacation ends in the future."));
    }
    if days_between(now, until) > MOST_VACATION_DAYS {
        return Err(invalid("A vacation lasts at most 30 days."));
    }
    Ok(until)
}

impl VacationView {
    fn of(row: &VacationRow, now: i64) -> VacationView {
        let (days, _) = counted(row, now);
        VacationView {
            days,
            most_days: MOST_VACATION_DAYS,
            first_days: FIRST_VACATION_DAYS,
            vacation: row
                .away
                .filter(|(_, until)| *until > now)
                .map(|(from, until)| VacationSpan {
                    from: rfc3339(from),
                    until: rfc3339(until),
                }),
        }
    }
}

impl Matches {
    /// The caller's vacation days and vacation.
    pub async fn vacation(&self, player: Player<'_>) -> Result<VacationView, MatchError> {
        let row = self.db.vacation(player.id()).await?;
        let row = row.ok_or(MatchError::NoSuchPlayer)?;
        Ok(VacationView::of(&row, self.clock.now()))
    }

    /// Starts the caller's vacation, until `request.until`: its days are spent, its open seeks
    /// withdrawn, and its matches that allow vacations record it.
    pub async fn start_vacation(
        &self,
        player: Player<'_>,
        request: NewVacation,
    ) -> Result<VacationView, MatchError> {
        let now = self.clock.now();
        let until = checked_end(&request, now)?;
        let mut change = self.locked_vacation(player).await?;
        if let Some(until) = away_until(&change.row, now) {
            return Err(MatchError::Vacation(VacationError::AlreadyOnVacation {
                until: rfc3339(until),
            }));
        }
        let (held, weeks_from) = counted(&change.row, now);
        let needed = days_between(now, until);
        if needed > held {
            return Err(MatchError::Vacation(VacationError::NotEnoughVacationDays {
                needed,
                held,
            }));
        }
        change
            .go_away(held - needed, weeks_from, now, until)
            .await?;
        change.commit().await?;
        self.noted_now().await;
        self.vacation(player).await
    }

    /// Ends the caller's vacation now, giving back the whole days it did not begin; without a
    /// vacation under way, changes nothing.
    pub async fn end_vacation(&self, player: Player<'_>) -> Result<VacationView, MatchError> {
        // Nothing to end is answered without the lock (on SQLite, the one write lock).
        let seen = self.vacation(player).await?;
        if seen.vacation.is_none() {
            return Ok(seen);
        }
        let now = self.clock.now();
        let mut change = self.locked_vacation(player).await?;
        let Some(until) = away_until(&change.row, now) else {
            // Ended meanwhile: the record under the lock is the answer. The lock is let go
            // before anything else is read (issue 35, finding 5: ten callers holding a locked
            // record each while reading on a second connection took the whole pool).
            return Ok(VacationView::of(&change.row, now));
        };
        let unspent = (until - now).div_euclid(VACATION_DAY_SECONDS);
        let (held, weeks_from) = counted(&change.row, now);
        let days = (held + unspent).min(MOST_VACATION_DAYS);
        change.come_back(days, weeks_from, now).await?;
        change.commit().await?;
        self.noted_now().await;
        self.vacation(player).await
    }

    /// The caller's vacation record, locked for a change.
    async fn locked_vacation(&self, player: Player<'_>) -> Result<VacationChange, MatchError> {
        let change = self.db.lock_vacation(player.id()).await?;
        change.ok_or(MatchError::NoSuchPlayer)
    }

    /// Brings the logs of the matches just marked up to date before answering, so that the
    /// caller's next view shows the change. The vacation is recorded already: a failure here
    /// leaves the logs to the next round.
    async fn noted_now(&self) {
        if let Err(error) = self.note_vacations().await {
            tracing::warn!(%error, "recording a vacation in its matches failed; the next round tries again");
        }
    }

    /// One round: the matches marked for a vacation, claimed for this process, each log brought
    /// up to date. How many were taken on.
    pub async fn note_vacations(&self) -> Result<usize, MatchError> {
        self.on_claimed(Work::Vacation, ROUND_BATCH, |match_id| async move {
            self.note_vacations_at(&match_id).await
        })
        .await
    }

    /// Writes into one match's log whatever vacations of its seats it does not record yet,
    /// then clears its mark (unless it was set again meanwhile).
    async fn note_vacations_at(&self, match_id: &str) -> Result<(), MatchError> {
        let Some(seen) = self.db.vacation_due(match_id).await? else {
            return Ok(());
        };
        // Notes fit whatever version the match is at: a lost race is tried again.
        retrying_races(|| async {
            let read = self.ledger.read_row_unchecked(match_id).await?;
            if read.row.status != MatchStatus::Playing {
                return Ok(());
            }
            let current = self.ledger.load(&read).await?;
            let away: HashMap<Seat, i64> = self
                .db
                .vacations_at(match_id)
                .await?
                .into_iter()
                .filter_map(|(seat, until)| Some((Seat::try_from(seat).ok()?, until)))
                .collect();
            let notes = vacation_notes(&current, &away, self.clock.now());
            if !notes.is_empty() {
                self.ledger
                    .write(match_id, &current, notes, |_| None)
                    .await?;
            }
            Ok(())
        })
        .await?;
        self.db.clear_vacation_due(match_id, seen).await?;
        Ok(())
    }

    /// Records vacations in the marked matches now and every [`ROUND_EVERY`], in the
    /// background.
    pub fn keep_noting_vacations(self: Arc<Self>) {
        let schedule = Schedule {
            name: "vacations",
            every: ROUND_EVERY,
            wake: None,
            batch: Some(ROUND_BATCH as usize),
        };
        background::keep_running(schedule, move || {
            let matches = self.clone();
            async move { matches.note_vacations().await }
        });
    }
}

/// The notes that bring `current`'s log in line with its players' vacations at `now` (`away`:
/// each seat's player's vacation end, where one is recorded): a start where a seat's player is
/// away and the log does not say so (or says until another time), an end where the log says
/// away and the player is back. Only seats still in, of people, at a clock vacations stop.
fn vacation_notes(current: &MatchState, away: &HashMap<Seat, i64>, now: i64) -> Vec<Entry> {
    let Some(clock) = current
        .clock
        .as_ref()
        .filter(|clock| clock.allows_vacations())
    else {
        return Vec::new();
    };
    let state = &current.state;
    (0..state.players())
        .filter(|seat| current.table.bot_at(*seat).is_none())
        .filter_map(|seat| {
            let wanted = away.get(&seat).copied().filter(|until| *until > now);
            let recorded = clock.away_until(seat, now);
            let note = match (wanted, recorded) {
                (Some(until), recorded) if recorded != Some(until) => Note::VacationStarted {
                    seat,
                    until: rfc3339(until),
                },
                (None, Some(_)) => Note::VacationEnded { seat },
                _ => return None,
            };
            clock.admits(&note, now).ok()?;
            note.checked(state).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::vacations::week_start;

    fn row(days: i64, weeks_from: i64, played_weeks: Vec<i64>) -> VacationRow {
        VacationRow {
            days,
            weeks_from,
            played_weeks,
            away: None,
        }
    }

    #[test]
    fn each_week_played_adds_a_day_up_to_the_most() {
        let week = 2_970;
        let now = week_start(week) + 3_600;
        assert_eq!(counted(&row(10, week - 5, vec![]), now), (10, week));
        let played = vec![week - 5, week - 3, week - 1];
        assert_eq!(counted(&row(10, week - 5, played), now), (13, week));
        // This week played: it is counted, and counted once.
        assert_eq!(counted(&row(10, week - 1, vec![week]), now), (11, week + 1));
        assert_eq!(counted(&row(11, week + 1, vec![]), now), (11, week + 1));
        assert_eq!(
            counted(&row(29, week - 5, vec![week - 4, week - 2, week]), now),
            (30, week + 1),
            "at most 30"
        );
    }

    #[test]
    fn a_vacation_takes_each_day_it_begins() {
        let day = VACATION_DAY_SECONDS;
        assert_eq!(days_between(0, 1), 1);
        assert_eq!(days_between(0, day), 1);
        assert_eq!(days_between(0, day + 1), 2);
        let request = |until: i64| NewVacation {
            until: rfc3339(until),
        };
        assert_eq!(checked_end(&request(30 * day), 0).ok(), Some(30 * day));
        for refused in [0, -5, 30 * day + 1] {
            assert!(matches!(
                checked_end(&request(refused), 0),
                Err(MatchError::Vacation(VacationError::InvalidVacation { .. }))
            ));
        }
        let unreadable = NewVacation {
            until: "next tuesday".into(),
        };
        assert!(matches!(
            checked_end(&unreadable, 0),
            Err(MatchError::Vacation(VacationError::InvalidVacation { .. }))
        ));
    }
}
