//! Background work on matches that server processes share: each piece is claimed for a while
//! (a lease, Unix seconds in a column of the match's row) by one process, which renews it while
//! working and releases it when done; a process that dies holding one only delays the work
//! until the lease runs out, a few seconds ([`crate::background::LEASE_SECONDS`]).
//! On PostgreSQL rows another process is claiming are skipped, not waited for
//! (`FOR UPDATE SKIP LOCKED`).

use sqlx::Row;

use super::{Backend, Db, StoreError};
use crate::store::query;

/// A kind of background work on matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// A clock's due forfeit, bot stand-in or reminder (see `matches::timekeeping`).
    Clock,
    /// A bot's turn to play (see `matches::bots`).
    BotTurn,
    /// A vacation begun or ended that the match's log may have to record (see
    /// `matches::vacations`).
    Vacation,
}

impl Work {
    /// Its lease column.
    const fn lease(self) -> &'static str {
        match self {
            Work::Clock => "clock_lease",
            Work::BotTurn => "bot_lease",
            Work::Vacation => "vacation_lease",
        }
    }

    /// Which matches have this work due at `$1`.
    const fn due(self) -> &'static str {
        match self {
            Work::Clock => {
                "status = 'playing' AND \
                 ((on_timeout IN ('forfeit', 'bot') AND deadline <= $1) OR remind_at <= $1)"
            }
            Work::BotTurn => "bot_turn_since IS NOT NULL",
            Work::Vacation => "vacation_due IS NOT NULL",
        }
    }

    /// The order it is taken in: the most overdue first.
    const fn order(self) -> &'static str {
        match self {
            Work::Clock => "deadline",
            Work::BotTurn => "bot_turn_since",
            Work::Vacation => "vacation_due",
        }
    }
}

/// What a claim takes: rows of `table` where `due` holds at `$1` and the `lease` column is free,
/// the first by `order`.
pub(super) struct Claim<'a> {
    pub table: &'a str,
    pub lease: &'a str,
    pub due: &'a str,
    pub order: &'a str,
    pub returning: &'a str,
}

/// The statement of a claim: at most `$3` rows, leased until `$2`; rows another process is
/// claiming at the same moment are skipped on PostgreSQL (SQLite has one writer anyway).
fn claim_statement(backend: Backend, claim: Claim<'_>) -> String {
    let Claim {
        table,
        lease,
        due,
        order,
        returning,
    } = claim;
    let skip_locked = match backend {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    format!(
        "UPDATE {table} SET {lease} = $2 WHERE id IN (\
           SELECT id FROM {table} WHERE {due} AND ({lease} IS NULL OR {lease} <= $1) \
           ORDER BY {order} LIMIT $3{skip_locked}) \
         RETURNING {returning}"
    )
}

impl Db {
    /// Claims, until `lease_until`, up to `limit` rows that `claim` picks at `now` and no other
    /// process holds: the rows as its `returning` names them. Every kind of leased work (a
    /// match's clock or bot turn, a webhook, a letter, an alert queue, a push message) is
    /// claimed here.
    pub(super) async fn claim_rows(
        &self,
        claim: Claim<'_>,
        now: i64,
        lease_until: i64,
        limit: i64,
    ) -> Result<Vec<sqlx::any::AnyRow>, StoreError> {
        let sql = claim_statement(self.backend(), claim);
        self.single(async |connection| {
            query(&sql)
                .bind(now)
                .bind(lease_until)
                .bind(limit)
                .fetch_all(connection)
                .await
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Claims, until `lease_until`, up to `limit` matches with `work` due at `now` that no
    /// other process holds; returns their ids.
    pub async fn claim_work(
        &self,
        work: Work,
        now: i64,
        lease_until: i64,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        let claim = Claim {
            table: "matches",
            lease: work.lease(),
            due: work.due(),
            order: work.order(),
            returning: "id",
        };
        let rows = self.claim_rows(claim, now, lease_until, limit).await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get("id"))
            .collect::<Result<_, _>>()?)
    }

    /// Extends this process's claims on `work` for these matches until `lease_until`; those
    /// given up already (no lease) stay free.
    pub async fn renew_work(
        &self,
        work: Work,
        match_ids: &[String],
        lease_until: i64,
    ) -> Result<(), StoreError> {
        self.renew_leases("matches", work.lease(), match_ids, lease_until)
            .await
    }

    /// Extends the leases in column `lease` of these rows of `table` until `lease_until`,
    /// unless given up already (NULL): the one renewal of every kind of claimed work.
    pub(super) async fn renew_leases(
        &self,
        table: &str,
        lease: &str,
        ids: &[String],
        lease_until: i64,
    ) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let places: Vec<String> = (2..ids.len() + 2)
            .map(|place| format!("${place}"))
            .collect();
        let sql = format!(
            "UPDATE {table} SET {lease} = $1 WHERE {lease} IS NOT NULL AND id IN ({})",
            places.join(", ")
        );
        let mut query = query(&sql).bind(lease_until);
        for id in ids {
            query = query.bind(id);
        }
        self.single(async |connection| query.execute(connection).await)
            .await?;
        Ok(())
    }

    /// Gives up this process's claim on a match's `work`.
    pub async fn release_work(&self, work: Work, match_id: &str) -> Result<(), StoreError> {
        let sql = format!("UPDATE matches SET {} = NULL WHERE id = $1", work.lease());
        self.single(async |connection| query(&sql).bind(match_id).execute(connection).await)
            .await?;
        Ok(())
    }
}
