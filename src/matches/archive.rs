//! Looking back: the table at any point of the log, and the verifiable export of a finished
//! match.

use serde::Deserialize;
use utoipa::IntoParams;

use super::access::Viewer;
use super::export::{EXPORT_FORMAT, ExportClock, ExportEvent, ExportSeat, MatchExport};
use super::{MatchError, MatchView, Matches};
use crate::model::MatchStatus;
use crate::rules::EVENT_FORMAT_VERSION;
use crate::store::{MatchRow, SeatRow};
use crate::time_source::rfc3339;

/// Which point of the log to show.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReplayQuery {
    /// Show the table after event `at` (0 … version).
    #[param(minimum = 0, maximum = 9_223_372_036_854_775_807_i64)]
    pub at: i64,
}

/// Events read at a time while exporting.
const EXPORT_PAGE: i64 = 5000;

impl Matches {
    /// The table after event `at`: from the caller's seat while the match runs (a spectator's
    /// view for others), fully open, every hand shown, once it has ended.
    pub async fn replay(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
        query: ReplayQuery,
    ) -> Result<MatchView, MatchError> {
        let (read, role) = self.ledger.read_row(match_id, viewer).await?;
        let row = &read.row;
        if !(0..=row.version).contains(&query.at) {
            return Err(MatchError::invalid_query(
                "at",
                format!("at is 0 to {}", row.version),
            ));
        }
        let state = self.ledger.state_at(row, query.at).await?;
        let mut replayed = MatchView::of(&row.id, query.at, &state, role.seat());
        if matches!(row.status, MatchStatus::Finished | MatchStatus::Aborted) {
            replayed.view = state.open_view();
        }
        Ok(MatchView {
            auto_end_turn: row.auto_end_turn,
            hints: row.hints,
            ..replayed
        })
    }

    /// The whole log of a finished match with its revealed secret and client seeds. Its players
    /// may export any match they played; anyone may export a finished public match.
    pub async fn export(
        &self,
        match_id: &str,
        viewer: Viewer<'_>,
    ) -> Result<MatchExport, MatchError> {
        let (read, seats, _) = self.ledger.read_row_and_seats(match_id, viewer).await?;
        self.export_of(read.row, seats).await
    }

    /// The export of any ended match, asked by no one: for the operator's own checks (`kings-corner
    /// copy` verifies every ended match it copied). No HTTP handler calls it: it asks for no
    /// caller's right to see the match.
    pub async fn export_for_audit(&self, match_id: &str) -> Result<MatchExport, MatchError> {
        let (row, _) = self
            .db
            .match_and_seat(match_id, None)
            .await?
            .ok_or(MatchError::NotFound)?;
        let seats = self.db.seats(match_id).await?;
        self.export_of(row, seats).await
    }

    /// The export of the match of `row`, seated by `seats`, once its log is closed.
    async fn export_of(
        &self,
        row: MatchRow,
        seats: Vec<SeatRow>,
    ) -> Result<MatchExport, MatchError> {
        if !matches!(row.status, MatchStatus::Finished | MatchStatus::Aborted) {
            return Err(MatchError::NotFinished);
        }
        let secret = self
            .db
            .match_secret(&row.id)
            .await?
            .ok_or_else(|| MatchError::Corrupt("no secret".into()))?;
        let mut events: Vec<ExportEvent> = Vec::new();
        loop {
            let after = events.last().map_or(0, |logged| logged.seq);
            let page = self.ledger.recorded(&row.id, after, EXPORT_PAGE).await?;
            if page.is_empty() {
                break;
            }
            events.extend(page.into_iter().map(|recorded| ExportEvent {
                seq: recorded.seq,
                hash: recorded.hash,
                at: Some(rfc3339(recorded.at)),
                event: recorded.event,
            }));
        }
        Ok(MatchExport {
            format: EXPORT_FORMAT,
            match_id: row.id,
            rules: row.rules,
            seats: seats
                .into_iter()
                .map(|seat| ExportSeat {
                    seat: seat.seat,
                    username: seat.username,
                    client_seed: seat.client_seed,
                })
                .collect(),
            commitment: row.commitment,
            secret,
            shuffle_version: row.shuffle_version,
            event_format: EVENT_FORMAT_VERSION,
            log_format: row.log_format,
            clock: row.clock.map(|settings| ExportClock {
                settings,
                on_timeout: row.on_timeout,
                vacations: row.vacations && settings.is_correspondence(),
            }),
            first_dealer: row.first_dealer,
            events,
        })
    }
}
