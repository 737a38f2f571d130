//! What a waiting match tells the players seated in it when a seat is taken or given up:
//! `seat_joined` and `seat_left` to everyone waiting but the one who joined or left, written in
//! the transaction that changes the seats (see [`crate::notifications`]).

use crate::notifications::notice::{Notice, SeatChanged};
use crate::store::notifications::NewNotification;
use crate::store::{MatchRow, SeatRow};

/// How a waiting match's seats changed.
#[derive(Clone, Copy)]
pub(super) enum Seats {
    Joined,
    Left,
}

/// `seat_joined` or `seat_left` to everyone waiting in the match but `username`, who joined or
/// left; `seats` are the seats after the change.
pub(super) fn of_seat_change(
    row: &MatchRow,
    seats: &[SeatRow],
    username: &str,
    change: Seats,
    now: i64,
) -> Vec<NewNotification> {
    let changed = SeatChanged {
        match_id: row.id.clone(),
        username: username.to_owned(),
        seats_taken: seats.len() as u8,
        seat_count: row.seat_count,
    };
    let notice = match change {
        Seats::Joined => Notice::SeatJoined(changed),
        Seats::Left => Notice::SeatLeft(changed),
    };
    seats
        .iter()
        .filter(|seat| seat.username != username && seat.bot.is_none())
        .map(|seat| notice.to(&seat.account_id, now))
        .collect()
}
