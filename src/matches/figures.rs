//! What a metrics scrape reads of the background work waiting in the database (the relay's, the webhooks', the bots' and the
//! clocks' queues, whichever service does the work: they share the one database). The
//! database is asked at most once a second, so that scraping often, or by several scrapers,
//! costs it nothing noticeable.

use std::time::{Duration, Instant};

use crate::instruments::Backlog;
use crate::store::Db;

/// How long one reading of the backlog is reused.
const BACKLOG_FRESH_FOR: Duration = Duration::from_secs(1);

/// The last reading of the backlog.
#[derive(Debug, Default)]
pub(super) struct LastBacklog(tokio::sync::Mutex<Option<(Instant, Backlog)>>);

impl LastBacklog {
    /// The backlog as read within the last second, or read now. A failed reading (the
    /// database away) keeps the last one: the request latencies and refusals tell the outage.
    pub(super) async fn read(&self, db: &Db, now: i64) -> Backlog {
        let mut last = self.0.lock().await;
        if let Some((read_at, backlog)) = *last
            && read_at.elapsed() < BACKLOG_FRESH_FOR
        {
            return backlog;
        }
        match db.backlog(now).await {
            Ok(backlog) => {
                *last = Some((Instant::now(), backlog));
                backlog
            }
            Err(error) => {
                tracing::warn!(%error, "could not read the background work's backlog for /metrics");
                last.map(|(_, backlog)| backlog).unwrap_or_default()
            }
        }
    }
}
