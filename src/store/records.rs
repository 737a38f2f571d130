//! A player's record: the matches an account sat in, with how each ended, and the moments
//! its seat left a match (for `GET /v1/players/{username}`).

use sqlx::Row;

use super::log_rows::events_of;
use super::rows::{ALIASED_MATCH_COLUMNS, MatchRow, match_from_row};
use super::{Db, StoreError};
use crate::rules::Seat;
use crate::store::query;

/// How a `seat_out` event's canonical JSON begins.
const SEAT_OUT: &str = r#"{"type":"seat_out""#;

impl Db {
    /// Every match `account_id` sat in, with its seat there.
    pub async fn matches_sat_in(
        &self,
        account_id: &str,
    ) -> Result<Vec<(MatchRow, Seat)>, StoreError> {
        let sql = format!(
            "SELECT {}, s.seat FROM match_seats s JOIN matches m ON m.id = s.match_id \
             WHERE s.account_id = $1",
            *ALIASED_MATCH_COLUMNS
        );
        let rows = self
            .read(async |connection| query(&sql).bind(account_id).fetch_all(connection).await)
            .await?;
        rows.iter()
            .map(|row| {
                let seat: i64 = row.try_get("seat")?;
                let seat = Seat::try_from(seat)
                    .map_err(|_| StoreError::Corrupt(format!("seat {seat}")))?;
                Ok((match_from_row(row)?, seat))
            })
            .collect()
    }

    /// The `seat_out` events of the matches `account_id` sat in, as stored (canonical JSON),
    /// with their match.
    pub async fn seats_out_of(
        &self,
        account_id: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        // The rows holding one: as their last event, or in `earlier` after its hash.
        let sql = format!(
            "SELECT e.match_id, e.seq, e.event, e.hash, e.earlier, e.created_at \
             FROM match_events e \
             JOIN match_seats s ON s.match_id = e.match_id \
             WHERE s.account_id = $1 AND (e.event LIKE '{SEAT_OUT}%' \
               OR e.earlier LIKE '%\",{SEAT_OUT}%')"
        );
        let rows = self
            .read(async |connection| query(&sql).bind(account_id).fetch_all(connection).await)
            .await?;
        let mut seats_out = Vec::new();
        let mut events = Vec::new();
        for row in &rows {
            let match_id: String = row.try_get("match_id")?;
            events.clear();
            events_of(row, &mut events)?;
            seats_out.extend(
                events
                    .drain(..)
                    .filter(|event| event.event.starts_with(SEAT_OUT))
                    .map(|event| (match_id.clone(), event.event)),
            );
        }
        Ok(seats_out)
    }
}
