//! Background work on matches, leased: a round claims the matches with a kind of work due
//! (at most a batch, each for [`LEASE_SECONDS`], renewed while the batch is worked through;
//! rows another process is claiming skipped; see [`crate::store::work`]), does the work of
//! each, and gives each lease up as soon as that match is done, or has failed and waits for
//! the next round. A process that dies holding a lease only delays that match's work until
//! the lease runs out, within a few seconds. The clock sweep
//! ([`super::clock_worker`]) and the bots' turns ([`super::bots`]) are rounds of this.

use super::{MatchError, Matches};
use crate::background::{LEASE_SECONDS, renewing};
use crate::store::work::Work;

impl Matches {
    /// One round of `work`: the matches it is due on, up to `batch`, claimed for this process
    /// and each given to `each`. Answers how many were taken on.
    pub(super) async fn on_claimed<Each, Done>(
        &self,
        work: Work,
        batch: i64,
        each: Each,
    ) -> Result<usize, MatchError>
    where
        // The id is handed over owned: a closure over a borrowed one would make the round's
        // future not `Send` for every lifetime, which a spawned task needs.
        Each: Fn(String) -> Done,
        Done: Future<Output = Result<(), MatchError>>,
    {
        let now = self.clock.now();
        let due = self
            .db
            .claim_work(work, now, now + LEASE_SECONDS, batch)
            .await?;
        let done = async {
            for match_id in &due {
                if let Err(error) = each(match_id.clone()).await {
                    tracing::warn!(match_id, ?work, %error, "background work on a match failed");
                }
                // Done (or failed, to be tried again at the next round): the match's next
                // work, a reminder's deadline say, must not wait for the lease to run out.
                self.db.release_work(work, match_id).await?;
            }
            Ok(due.len())
        };
        renewing(done, || {
            self.db
                .renew_work(work, &due, self.clock.now() + LEASE_SECONDS)
        })
        .await
    }
}
