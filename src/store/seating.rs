//! Seat changes under a lock on their match: a join, a leave, and the start that the last join
//! brings, each one transaction. While one change holds the lock, every other change of the same
//! match waits, so two of them can never both act on the seats they read (a leave racing the
//! last join, four leaves at once).
//!
//! On PostgreSQL the match's row is locked (`SELECT … FOR UPDATE`); on SQLite the transaction
//! takes the database's write lock when it begins (`BEGIN IMMEDIATE`).

use std::time::Duration;

use sqlx::{Any, Row, Transaction};

use super::append::{self, Append};
use super::matches::{NewMatch, insert_in};
use super::notifications::{self, NewNotification};
use super::rows::{MATCH_COLUMNS, MatchRow, SeatRow, match_from_row, seat_from_row, seat_of};
use super::{Backend, Db, StoreError, within};
use crate::model::{Level, Named};
use crate::rules::Seat;
use crate::store::query;

/// A match locked for a change of its seats. Dropping it without [`SeatChange::commit`] rolls
/// every change back.
pub struct SeatChange {
    transaction: Transaction<'static, Any>,
    backend: Backend,
    /// The statement timeout, for each statement of the change.
    timeout: Duration,
    /// The match as it is under the lock.
    pub row: MatchRow,
    /// Its taken seats under the lock, in seat order.
    pub seats: Vec<SeatRow>,
    /// The accounts this change tells something, recorded in `told` for the relay once
    /// committed.
    telling: Vec<String>,
    told: super::told::ToldAccounts,
}

impl Db {
    /// Locks a match for a change of seats; `None` when there is no such match.
    pub async fn lock_seats(&self, match_id: &str) -> Result<Option<SeatChange>, StoreError> {
        let mut transaction = self.begin_write().await?;
        let lock = self.backend().row_lock();
        let row = self
            .timed(
                query(&format!(
                    "SELECT {MATCH_COLUMNS} FROM matches WHERE id = $1{lock}"
                ))
                .bind(match_id)
                .fetch_optional(&mut *transaction),
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let row = match_from_row(&row)?;
        let seats = self
            .timed(
                query(
                    "SELECT s.seat, s.account_id, a.username, s.client_seed, s.bot_level FROM match_seats s \
                     JOIN accounts a ON a.id = s.account_id WHERE s.match_id = $1 ORDER BY s.seat",
                )
                .bind(match_id)
                .fetch_all(&mut *transaction),
            )
            .await?
            .iter()
            .map(seat_from_row)
            .collect::<Result<_, _>>()?;
        Ok(Some(SeatChange {
            transaction,
            backend: self.backend(),
            timeout: self.statement_timeout,
            row,
            seats,
            telling: Vec::new(),
            told: self.told.clone(),
        }))
    }
}

impl SeatChange {
    /// Seats `account_id` in `seat`; `bot` says which bot, when it is a bot account.
    pub async fn take_seat(
        &mut self,
        seat: Seat,
        account_id: &str,
        client_seed: &str,
        bot: Option<Level>,
        now: i64,
    ) -> Result<(), StoreError> {
        if seat >= self.row.seat_count {
            return Err(StoreError::Corrupt(format!(
                "seat {seat} of a match of {} seats",
                self.row.seat_count
            )));
        }
        let timeout = self.timeout;
        within(timeout, async {
            query("INSERT INTO match_seats (match_id, seat, account_id, client_seed, joined_at, bot_level) VALUES ($1, $2, $3, $4, $5, $6)")
                .bind(&self.row.id)
                .bind(i64::from(seat))
                .bind(account_id)
                .bind(client_seed)
                .bind(now)
                .bind(bot.map(Level::name))
                .execute(&mut *self.transaction)
                .await?;
            let username: String = query("SELECT username FROM accounts WHERE id = $1")
                .bind(account_id)
                .fetch_one(&mut *self.transaction)
                .await?
                .try_get("username")?;
            self.seats.push(SeatRow {
                seat,
                account_id: account_id.to_owned(),
                username,
                client_seed: client_seed.to_owned(),
                bot,
            });
            Ok::<_, StoreError>(())
        })
        .await
    }

    /// Who may take a seat in this match and where each sits once the table is full (a
    /// rematch's plan), in seat order; empty: anyone, in the order they come.
    pub async fn plan(&mut self) -> Result<Vec<(Seat, String)>, StoreError> {
        let timeout = self.timeout;
        within(timeout, async {
            query(
                "SELECT seat, account_id FROM match_reservations WHERE match_id = $1 ORDER BY seat",
            )
            .bind(&self.row.id)
            .fetch_all(&mut *self.transaction)
            .await?
            .iter()
            .map(|row| {
                let seat: i64 = row.try_get("seat")?;
                let seat = Seat::try_from(seat)
                    .map_err(|_| StoreError::Corrupt(format!("reserved seat {seat}")))?;
                Ok::<_, StoreError>((seat, row.try_get("account_id")?))
            })
            .collect()
        })
        .await
    }

    /// Moves every player to the seat `plan` gives them (a full rematch, before its deal).
    /// Every seated account must be in the plan, each once, in a seat of the match: otherwise
    /// nothing is moved and the change fails (and rolls back whole), so no seat is ever left
    /// at the temporary number it passes through.
    pub async fn seat_as_planned(&mut self, plan: &[(Seat, String)]) -> Result<(), StoreError> {
        let mut planned: Vec<&str> = plan.iter().map(|(_, account)| account.as_str()).collect();
        let mut seated: Vec<&str> = self
            .seats
            .iter()
            .map(|taken| taken.account_id.as_str())
            .collect();
        planned.sort_unstable();
        seated.sort_unstable();
        let mut seats: Vec<Seat> = plan.iter().map(|(seat, _)| *seat).collect();
        seats.sort_unstable();
        seats.dedup();
        if planned != seated
            || seats.len() != plan.len()
            || seats
                .last()
                .is_some_and(|seat| *seat >= self.row.seat_count)
        {
            return Err(StoreError::Corrupt(format!(
                "match {}: the seats taken do not match its plan",
                self.row.id
            )));
        }
        let timeout = self.timeout;
        within(timeout, async {
            // Out of the way first, so (match_id, seat) stays unique throughout.
            query("UPDATE match_seats SET seat = seat + 1000 WHERE match_id = $1")
                .bind(&self.row.id)
                .execute(&mut *self.transaction)
                .await?;
            for (seat, account_id) in plan {
                let moved = query(
                    "UPDATE match_seats SET seat = $1 WHERE match_id = $2 AND account_id = $3",
                )
                .bind(i64::from(*seat))
                .bind(&self.row.id)
                .bind(account_id)
                .execute(&mut *self.transaction)
                .await?;
                if moved.rows_affected() != 1 {
                    return Err(StoreError::Corrupt(format!(
                        "match {}: a planned player holds {} seats",
                        self.row.id,
                        moved.rows_affected()
                    )));
                }
                if let Some(taken) = self
                    .seats
                    .iter_mut()
                    .find(|taken| &taken.account_id == account_id)
                {
                    taken.seat = *seat;
                }
            }
            self.seats.sort_by_key(|taken| taken.seat);
            Ok::<_, StoreError>(())
        })
        .await
    }

    /// Creates `new` as the rematch of this (ended) match, which then points to it.
    pub async fn offer_rematch(&mut self, new: &NewMatch<'_>) -> Result<(), StoreError> {
        let timeout = self.timeout;
        let backend = self.backend;
        within(timeout, async {
            insert_in(&mut self.transaction, backend, new).await?;
            query("UPDATE matches SET next_match_id = $1 WHERE id = $2")
                .bind(&new.row.id)
                .bind(&self.row.id)
                .execute(&mut *self.transaction)
                .await?;
            self.row.next_match_id = Some(new.row.id.clone());
            Ok::<_, StoreError>(())
        })
        .await
    }

    /// Frees `account_id`'s seat; later seats move down one, and a match left with nobody but
    /// bots is deleted.
    pub async fn free_seat(&mut self, account_id: &str) -> Result<(), StoreError> {
        let Some(freed) = seat_of(&self.seats, account_id) else {
            return Ok(());
        };
        let timeout = self.timeout;
        within(timeout, async {
            query("DELETE FROM match_seats WHERE match_id = $1 AND seat = $2")
                .bind(&self.row.id)
                .bind(i64::from(freed))
                .execute(&mut *self.transaction)
                .await?;
            self.seats.retain(|seat| seat.seat != freed);
            // One row at a time, lowest first, so (match_id, seat) stays unique throughout.
            for later in self.seats.iter_mut().filter(|seat| seat.seat > freed) {
                query("UPDATE match_seats SET seat = $1 WHERE match_id = $2 AND seat = $3")
                    .bind(i64::from(later.seat - 1))
                    .bind(&self.row.id)
                    .bind(i64::from(later.seat))
                    .execute(&mut *self.transaction)
                    .await?;
                later.seat -= 1;
            }
            if self.seats.iter().all(|seat| seat.bot.is_some()) {
                query("DELETE FROM matches WHERE id = $1")
                    .bind(&self.row.id)
                    .execute(&mut *self.transaction)
                    .await?;
            }
            Ok::<_, StoreError>(())
        })
        .await
    }

    /// Whether the match `id` (a rematch offered from this one) still exists, read in this
    /// transaction: a second connection taken while this one holds its lock would let a
    /// crowd of callers hold the whole pool.
    pub async fn match_exists(&mut self, id: &str) -> Result<bool, StoreError> {
        let found = within(
            self.timeout,
            query("SELECT 1 FROM matches WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *self.transaction),
        )
        .await?;
        Ok(found.is_some())
    }

    /// The match's shuffle secret (hex).
    pub async fn secret(&mut self) -> Result<String, StoreError> {
        let row = within(
            self.timeout,
            query("SELECT secret FROM match_secrets WHERE match_id = $1")
                .bind(&self.row.id)
                .fetch_one(&mut *self.transaction),
        )
        .await?;
        Ok(row.try_get("secret")?)
    }

    /// Appends the match's first events (its start) in the same transaction as the seats, and
    /// marks the match for the vacation round (a player may be away already).
    pub async fn append(&mut self, append: &Append) -> Result<bool, StoreError> {
        within(self.timeout, async {
            let appended = append::append_in(&mut self.transaction, self.backend, append).await?;
            if appended {
                self.telling.extend(
                    append
                        .notifications
                        .iter()
                        .map(|notification| notification.account_id.clone()),
                );
                super::vacations::look_at_start(&mut self.transaction, &append.match_id).await?;
            }
            Ok::<_, StoreError>(appended)
        })
        .await
    }

    /// Writes notifications of the change in its transaction.
    pub async fn notify(&mut self, notifications: &[NewNotification]) -> Result<(), StoreError> {
        within(
            self.timeout,
            notifications::insert(&mut self.transaction, notifications),
        )
        .await?;
        self.telling.extend(
            notifications
                .iter()
                .map(|notification| notification.account_id.clone()),
        );
        Ok(())
    }

    /// Makes every change of this transaction durable at once. A failure here is
    /// [`StoreError::Unconfirmed`].
    pub async fn commit(self) -> Result<(), StoreError> {
        within(self.timeout, self.transaction.commit())
            .await
            .map_err(StoreError::of_write)?;
        self.told.record_accounts(self.telling);
        Ok(())
    }
}
