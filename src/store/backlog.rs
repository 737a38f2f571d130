//! What background work waits in the database, for the metrics: how many pieces of each kind and
//! how long the oldest has waited. One statement, each part on an index the work itself uses
//! (`notifications_to_relay` and `notification_fanout`, `webhook_deliveries_pending`, the lease columns' due order,
//! `matches_vacation_due`, `outgoing_mail_due`).

use sqlx::Row;

use super::{Db, StoreError};
use crate::instruments::Backlog;
use crate::store::query;

/// Counts and the oldest time of each queue at `$1` (Unix seconds): one aggregate per queue,
/// each over its rows once.
const BACKLOG: &str = "SELECT * FROM \
    (SELECT COUNT(*) AS unrelayed, MIN(created_at) AS unrelayed_since FROM \
       (SELECT created_at FROM notifications WHERE seq IS NULL \
        UNION ALL SELECT n.created_at FROM notification_fanout f \
        JOIN notifications n ON n.id = f.notification_id) AS waiting) AS relay, \
    (SELECT COUNT(*) AS outbox, MIN(d.created_at) AS outbox_since \
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id \
       WHERE d.state = 'pending' AND w.disabled_at IS NULL) AS outbox, \
    (SELECT COUNT(*) AS bot_turns, MIN(bot_turn_since) AS bot_since \
       FROM matches WHERE bot_turn_since IS NOT NULL) AS bots, \
    (SELECT COUNT(*) AS clocks, \
            MIN(CASE WHEN on_timeout IN ('forfeit', 'bot') AND deadline <= $1 \
                     AND (remind_at IS NULL OR remind_at > deadline) THEN deadline \
                     ELSE remind_at END) AS clocks_since \
       FROM matches WHERE status = 'playing' AND \
       ((on_timeout IN ('forfeit', 'bot') AND deadline <= $1) OR remind_at <= $1)) AS clocks, \
    (SELECT COUNT(*) AS vacations FROM matches WHERE vacation_due IS NOT NULL) AS vacations, \
    (SELECT COUNT(*) AS mail, MIN(created_at) AS mail_since \
       FROM outgoing_mail WHERE next_attempt_at IS NOT NULL) AS mail, \
    (SELECT COUNT(CASE WHEN channel = 'email' THEN 1 END) AS email_alerts, \
            COUNT(CASE WHEN channel = 'push' THEN 1 END) AS push_alerts \
       FROM pending_alerts) AS alerts";

impl Db {
    /// The background work waiting at `now`.
    pub async fn backlog(&self, now: i64) -> Result<Backlog, StoreError> {
        let row = self
            .read(async |connection| query(BACKLOG).bind(now).fetch_one(connection).await)
            .await?;
        let age = |column: &str| -> Result<i64, StoreError> {
            let since: Option<i64> = row.try_get(column)?;
            Ok(since.map_or(0, |since| (now - since).max(0)))
        };
        Ok(Backlog {
            unrelayed: row.try_get("unrelayed")?,
            relay_lag: age("unrelayed_since")?,
            outbox_pending: row.try_get("outbox")?,
            outbox_oldest: age("outbox_since")?,
            bot_turns: row.try_get("bot_turns")?,
            bot_lag: age("bot_since")?,
            clocks_due: row.try_get("clocks")?,
            clock_lag: age("clocks_since")?,
            vacations_due: row.try_get("vacations")?,
            mail_waiting: row.try_get("mail")?,
            mail_oldest: age("mail_since")?,
            email_alerts: row.try_get("email_alerts")?,
            push_alerts: row.try_get("push_alerts")?,
        })
    }
}
